import type { CloudEvent } from '@cc/bus';
import { createLogger } from '@cc/kit';
import { StatisticsConsumer } from '../../src/events/statistics.consumer';
import { type ActivityRound, decodeActivityChunk } from '../../src/store/activity-chunk.codec';
import type { StatisticsRepository } from '../../src/store/statistics.repository';
import { InteractionEvents } from '../builders/interaction-events';

const log = createLogger('test', 'silent');
const ctx = (partition: number) => ({ topic: 't', partition, offset: '0', log });
const asEvent = (type: string, data: unknown, accountid = 'acc-1') =>
  ({ id: `${type}-${Math.random()}`, type, accountid, data }) as unknown as CloudEvent;

/** A repository that records what it is asked to write and can be made to fail. */
function recordingRepo() {
  const calls = {
    activities: [] as unknown[][],
    interactions: [] as unknown[][],
    failNext: false,
    gate: null as Promise<void> | null,
  };
  const repo = {
    /** Recorded as, per round with writes, its writes and per account the finished and running activities held. */
    async writeActivityRounds(rounds: ActivityRound[]) {
      if (calls.gate) await calls.gate;
      if (calls.failNext) {
        calls.failNext = false;
        throw new Error('store down');
      }
      calls.activities.push(
        rounds
          .filter((r) => r.writes)
          .map((r) => ({
            writes: r.writes,
            accounts: [...r.accounts].map(([accountId, hours]) => {
              const chunks = [...hours.values()].map((rows) => decodeActivityChunk(rows.encode(0)));
              return {
                accountId,
                closed: chunks.reduce((n, c) => n + c.c.length, 0),
                open: chunks.reduce((n, c) => n + c.o.length, 0),
              };
            }),
          })),
      );
    },
    async writeInteractionEvents(batch: unknown[]) {
      calls.interactions.push(batch);
    },
  };
  return { calls, repo: repo as unknown as StatisticsRepository };
}

const presence = {
  agentId: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
  agentUsername: 'alice',
  occurredAt: '2024-05-01T08:00:00.000Z',
  sequence: 1,
  presence: 'Ready',
  eligibleForRouting: true,
  reason: null,
  previous: null,
};

describe('StatisticsConsumer', () => {
  it('buffers batches of every partition and writes them in one flush', async () => {
    const { calls, repo } = recordingRepo();
    const consumer = new StatisticsConsumer(repo, () => 0);
    const events = new InteractionEvents().queued(0).offered(1000, 'A', 'cccccccc-cccc-4ccc-8ccc-cccccccccc01').events;
    for (const e of events) await consumer.handle(asEvent(e.type, e.data), ctx(0));
    await consumer.handle(asEvent('agent-activity.presence-changed', presence), ctx(1));
    await consumer.handle(asEvent('interaction.recorded', {}), ctx(0)); // analysis's, not a record's
    expect(calls.interactions).toEqual([]);
    await consumer.flush(ctx(0));
    expect(calls.interactions).toHaveLength(1);
    expect(calls.interactions[0]).toHaveLength(2);
    // Partition 1's buffer went with the same write (written before its own flush commits it).
    expect(calls.activities[0]).toEqual([{ writes: 1, accounts: [{ accountId: 'acc-1', closed: 0, open: 1 }] }]);
    await consumer.flush(ctx(1));
    expect(calls.activities).toHaveLength(1);
    expect(consumer.written).toBe(3);
  });

  it('lets batches that finish while a write runs share the next write', async () => {
    const { calls, repo } = recordingRepo();
    const consumer = new StatisticsConsumer(repo, () => 0);
    let open!: () => void;
    calls.gate = new Promise((r) => {
      open = r;
    });
    await consumer.handle(asEvent('agent-activity.presence-changed', presence), ctx(0));
    const first = consumer.flush(ctx(0));
    await new Promise((r) => setImmediate(r)); // the first write has started and waits at the gate
    const later = (minute: number) => ({
      ...presence,
      occurredAt: `2024-05-01T08:0${minute}:00.000Z`,
      previous: {
        presence: 'Ready',
        eligibleForRouting: true,
        startedAt: `2024-05-01T08:0${minute - 1}:00.000Z`,
        durationMs: 60_000,
      },
    });
    await consumer.handle(asEvent('agent-activity.presence-changed', later(1)), ctx(1));
    const second = consumer.flush(ctx(1)); // queued behind it
    await consumer.handle(asEvent('agent-activity.presence-changed', later(2)), ctx(2));
    const third = consumer.flush(ctx(2)); // joins the queued one
    expect(third).toBe(second);
    open();
    await Promise.all([first, second, third]);
    expect(calls.activities).toHaveLength(2);
    // 08:01 closed (its running form, written at 08:01, dropped) and 08:02 running; 08:00 closed by the second event.
    expect(calls.activities[1]).toEqual([{ writes: 4, accounts: [{ accountId: 'acc-1', closed: 2, open: 1 }] }]);
  });

  it('keeps the buffer when a flush fails, so the next flush writes it', async () => {
    const { calls, repo } = recordingRepo();
    const consumer = new StatisticsConsumer(repo, () => 0);
    await consumer.handle(asEvent('agent-activity.presence-changed', presence), ctx(0));
    calls.failNext = true;
    await expect(consumer.flush(ctx(0))).rejects.toThrow('store down');
    await consumer.flush(ctx(0));
    expect(calls.activities).toHaveLength(1);
    await consumer.flush(ctx(0));
    expect(calls.activities).toHaveLength(1); // nothing left after a successful flush
  });
});

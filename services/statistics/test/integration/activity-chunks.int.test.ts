import { createLogger } from '@cc/kit';
import { connectStore, ensureIndexes } from '@cc/store';
import { eventually, freshName, testInfra } from '@cc/testing';
import type { Connection } from 'mongoose';
import type { ActivityItem, ActivityWrite } from '../../src/domain/agent-activity';
import { hourMs, hourOf } from '../../src/domain/time';
import { statisticsModels } from '../../src/store/models';
import { StatisticsRepository } from '../../src/store/statistics.repository';

const account = 'acc-chunks';
const hour = hourOf(Date.parse('2024-05-01T08:00:00Z'));
const at = (minute: number) => hour * hourMs + minute * 60_000;

function presence(agent: number, minute: number, end: number | null): ActivityItem {
  return {
    agentId: `00000000-0000-4000-8000-${String(agent).padStart(12, '0')}`,
    type: 'Presence',
    category: 'Ready',
    name: 'Ready',
    eligibleForRouting: true,
    start: at(minute),
    end,
    status: null,
    reason: null,
    interaction: null,
    channel: null,
    workload: null,
  };
}

const write = (kind: 'open' | 'closed', key: string, item: ActivityItem): ActivityWrite => ({
  kind,
  key,
  hour: hourOf(item.start),
  item,
});

describe('activity chunks on the real store', () => {
  let conn: Connection;
  let repo: StatisticsRepository;
  let models: ReturnType<typeof statisticsModels>;

  beforeAll(async () => {
    const infra = await testInfra();
    conn = await connectStore({
      url: infra.mongoUrl,
      dbName: freshName('cc_statistics_chunks'),
      logger: createLogger('test', 'silent'),
    });
    models = statisticsModels(conn);
    await ensureIndexes(Object.values(models));
    repo = new StatisticsRepository(models);
  });

  afterAll(async () => {
    await conn.dropDatabase().catch(() => undefined);
    await conn.close();
  });

  it('merges an hour written by many batches into one chunk, the latest version of each activity winning', async () => {
    const window = { start: at(0), end: at(60), include: 'Started' as const };
    // 30 batches, each opening one activity and closing the one before: past the merge threshold.
    for (let i = 0; i < 30; i++) {
      const writes = [write('open', `k${i}`, presence(i, i, null))];
      if (i > 0) writes.push(write('closed', `k${i - 1}`, presence(i - 1, i - 1, at(i))));
      await repo.writeActivities([{ accountId: account, writes }], at(i) + 1);
    }
    // A redelivered batch: the same closed version again changes nothing.
    await repo.writeActivities(
      [{ accountId: account, writes: [write('closed', 'k5', presence(5, 5, at(6)))] }],
      at(40),
    );
    const expected = Array.from({ length: 30 }, (_, i) => ({
      start: at(i),
      end: i < 29 ? at(i + 1) : null,
    }));
    const before = await repo.activities(account, window);
    expect(before.map((a) => ({ start: a.start, end: a.end }))).toEqual(expected);

    const chunks = () => models.ActivityChunk.collection.countDocuments({ g: `${account}|${hour}` });
    await eventually(chunks, { accept: (n) => n < 31, what: 'the hour merged', timeoutMs: 30_000 });
    const after = await repo.activities(account, window);
    expect(after).toEqual(before);
    expect(after.find((a) => a.start === at(5))?.updatedAt).toBe(at(40));
  }, 60_000);

  it('pages a long window from the chunk heads, reading the shown hours only, as the full read would', async () => {
    const paged = 'acc-chunks-pages';
    // Three hours of five activities, one batch each (one chunk per hour: counted from its head).
    for (let hr = 0; hr < 3; hr++) {
      const writes = Array.from({ length: 5 }, (_, i) =>
        write('closed', `p${hr}-${i}`, presence(i, hr * 60 + i * 10, at(hr * 60 + i * 10 + 5))),
      );
      await repo.writeActivities([{ accountId: paged, writes }], at(200));
    }
    const whole = { start: at(0), end: at(180), include: 'Started' as const };
    const all = await repo.activities(paged, whole);
    expect(all).toHaveLength(15);
    for (const [page, limit] of [
      [1, 4],
      [2, 4],
      [4, 4],
      [1, 15],
      [2, 5],
    ] as const) {
      const got = await repo.activityPage(paged, whole, {}, page, limit);
      expect({ page, limit, total: got.total, items: got.items }).toEqual({
        page,
        limit,
        total: 15,
        items: all.slice((page - 1) * limit, page * limit),
      });
    }
    // A window cutting hours (read and counted from their data) and a filter (full read) agree too.
    const cut = { start: at(25), end: at(135), include: 'Started' as const };
    const inCut = await repo.activities(paged, cut);
    expect(inCut.map((a) => a.start)).toEqual([
      at(30),
      at(40),
      at(60),
      at(70),
      at(80),
      at(90),
      at(100),
      at(120),
      at(130),
    ]);
    expect(await repo.activityPage(paged, cut, {}, 2, 4)).toEqual({ items: inCut.slice(4, 8), total: 9 });
    const agent = presence(1, 0, null).agentId;
    const one = await repo.activityPage(paged, whole, { agentId: agent }, 1, 10);
    expect(one.items.map((a) => a.start)).toEqual([at(10), at(70), at(130)]);
  });

  it('reads ended and written activities through the reference chunks', async () => {
    const other = 'acc-chunks-refs';
    const item = presence(1, 10, at(70)); // started in the hour, ended in the next
    await repo.writeActivities([{ accountId: other, writes: [write('closed', 'r1', item)] }], at(75));
    const ended = await repo.activities(other, { start: at(65), end: at(80), include: 'StartedOrEnded' });
    expect(ended.map((a) => a.start)).toEqual([at(10)]);
    const processed = await repo.activities(other, { start: at(74), end: at(76), include: 'Processed' });
    expect(processed.map((a) => a.end)).toEqual([at(70)]);
    expect(await repo.activities(other, { start: at(65), end: at(80), include: 'Started' })).toEqual([]);
  });
});

import { randomUUID } from 'node:crypto';
import { type BatchContext, EventSchemas, newEvent } from '@cc/bus';
import type { KafkaMessage } from 'kafkajs';
import { intervalsOf } from '../../src/domain/activity';
import { SummaryBook } from '../../src/domain/book';
import { AccountFlags } from '../../src/domain/flags';
import { summariesRawHandler } from '../../src/events/activity.consumer';
import {
  BatchReader,
  encodeBatch,
  type ReadBatch,
  type ReadChunk,
  readBatch,
  readItems,
} from '../../src/events/ingest-read';
import { RecentIds } from '../../src/events/recent-ids';
import { AgentEvents } from '../builders/activity.builders';

const schemas = new EventSchemas();
const activity = 'cc.agent-activity.v1';
const acc = 'acc-1';
const ctx = { topic: activity, partition: 0, log: { warn: () => undefined } } as unknown as BatchContext;

const envelope = (e: { type: string; data: unknown }, accountId = acc) =>
  newEvent({
    source: '/cc/routing',
    type: e.type,
    subject: (e.data as { agentId: string }).agentId,
    accountId,
    data: { accountId, ...(e.data as object) },
  });
const text = (e: unknown) => Buffer.from(JSON.stringify(e));
const read = (values: (Buffer | null)[], recent = new RecentIds(), topic = activity) =>
  readBatch(schemas, encodeBatch(topic, values), recent);
/** A structured clone, as the worker's answer arrives. */
const cloned = (r: ReadBatch): ReadBatch => structuredClone(r);

/** The account's summaries flag switched on. */
const flagEvent = () =>
  newEvent({
    source: '/cc/provider-registry',
    type: 'account.feature-flags-changed',
    subject: acc,
    accountId: acc,
    data: {
      accountId: acc,
      flags: { agentSummaries: true, conversationAnalysis: false, v0Statistics: false },
      changed: ['agentSummaries'],
      occurredAt: '2026-01-01T10:00:00.000Z',
    },
  });

/** One agent's shift: presence changes, a ring answered, a call with a hold, wrap (every interval kind). */
function shift(agent = new AgentEvents()) {
  const ch = randomUUID();
  return [
    agent.presence('2026-01-01T10:02:00.000Z', 'Ready'),
    agent.segmentStarted('2026-01-01T10:05:00.000Z', 'Ringing', ch),
    agent.segmentEnded('2026-01-01T10:05:00.000Z', '2026-01-01T10:05:20.000Z', 'Ringing', ch, 'Answered'),
    agent.segmentStarted('2026-01-01T10:05:20.000Z', 'Connected', ch, 'Outbound'),
    agent.segmentEnded('2026-01-01T10:07:00.000Z', '2026-01-01T10:08:00.000Z', 'HeldExternalParty', ch),
    agent.segmentEnded('2026-01-01T10:05:20.000Z', '2026-01-01T10:16:40.000Z', 'Connected', ch, null, 'Outbound'),
    agent.presence('2026-01-01T10:20:00.000Z', 'Away', { presence: 'Ready', since: '2026-01-01T10:02:00.000Z' }),
  ].map((e) => envelope(e));
}

describe('reading a batch for the ingest worker', () => {
  it('gives each event intervalsOf would, with its id, account and agent, through a structured clone', () => {
    const events = shift();
    const r = cloned(read(events.map(text)));
    expect(r.handled).toBe(events.length);
    const items = [...readItems(r)];
    expect(items).toEqual(
      events.map((e) => ({ id: e.id, accountId: acc, agentId: e.subject, ...intervalsOf(e as never) })),
    );
  });

  it('builds the same buckets as applying the parsed events', () => {
    const events = [...shift(), ...shift()];
    const direct = new SummaryBook();
    for (const e of events) direct.apply(acc, e, 5);
    const viaWorker = new SummaryBook();
    for (const item of readItems(cloned(read(events.map(text)))))
      if (!('event' in item)) viaWorker.applyIntervals(item.accountId, item.agentId, item.closed, item.opened, 5);
    const q = {
      from: Date.parse('2026-01-01T10:00:00.000Z'),
      to: Date.parse('2026-01-01T11:00:00.000Z'),
      page: 1,
      limit: 100,
    };
    expect(viaWorker.query(acc, q)).toEqual(direct.query(acc, q));
    expect(viaWorker.query(acc, q).total).toBe(4);
  });

  it('stops at the first message that is not a valid event: not JSON, invalid, or without a value', () => {
    const [a, b, c] = shift();
    expect(read([text(a), Buffer.from('not json'), text(b)]).handled).toBe(1);
    const invalid = { ...b, data: { ...(b?.data as object), occurredAt: 'yesterday' } };
    const r = read([text(a), text(invalid), text(c)]);
    expect(r.handled).toBe(1);
    expect([...readItems(r)].map((i) => ('id' in i ? i.id : ''))).toEqual([a?.id]);
    expect(read([text(a), null, text(c)]).handled).toBe(1);
    expect(read([text({ ...a, type: 'agent-activity.unheard-of' })]).handled).toBe(0);
  });

  it('reads an event id once in a batch, and skips it later only once the batch was settled as applied', () => {
    const [a, b, c] = shift();
    const reader = new BatchReader(schemas);
    const first = reader.read(1, encodeBatch(activity, [text(a), text(a), text(b)]));
    expect(first.handled).toBe(3);
    expect(first.duplicates).toBe(1);
    expect([...readItems(first)]).toHaveLength(2);
    // Not settled yet: read again (a batch read beside it is not deduplicated against it).
    expect([...readItems(reader.read(2, encodeBatch(activity, [text(b)])))]).toHaveLength(1);
    reader.settle(1, true);
    reader.settle(2, true);
    expect(reader.read(3, encodeBatch(activity, [text(b)]))).toMatchObject({ handled: 1, duplicates: 1 });
    expect([...readItems(reader.read(4, encodeBatch(activity, [text(a), text(b)])))]).toEqual([]);
    // Read but not applied (the consumer stopped before it): forgotten, so a redelivery reads it again.
    expect([...readItems(reader.read(5, encodeBatch(activity, [text(c)])))]).toHaveLength(1);
    reader.settle(5, false);
    expect([...readItems(reader.read(6, encodeBatch(activity, [text(c)])))]).toHaveLength(1);
    for (const id of [3, 4, 6]) reader.settle(id, true);
    expect(reader.pending()).toBe(0);
  });

  it('hands other events back whole', () => {
    const flag = flagEvent();
    expect([...readItems(cloned(read([text(flag)], new RecentIds(), 'cc.account.v1')))]).toEqual([{ event: flag }]);
  });
});

describe('the raw fast path of the summaries consumer', () => {
  const messages = (values: Buffer[]) => values.map((value, i) => ({ value, offset: String(i) }) as KafkaMessage);
  /** The worker's reading, in this thread (answers cloned as they would arrive); `fail` fails the nth read. */
  const inProcess = (fail?: (call: number) => boolean) => {
    const reader = new BatchReader(schemas);
    let calls = 0;
    const settled: [number, boolean][] = [];
    return {
      reader,
      settled,
      read: async (topic: string, batch: KafkaMessage[]): Promise<ReadChunk> => {
        const id = ++calls;
        if (fail?.(id)) throw new Error('worker gone');
        const values = batch.map((m) => m.value);
        return { id, ...cloned(reader.read(id, encodeBatch(topic, values))) };
      },
      settle: (read: ReadChunk, applied: boolean) => {
        settled.push([read.id, applied]);
        reader.settle(read.id, applied);
      },
    };
  };

  it('applies chunk after chunk and stops at a chunk holding an invalid message', async () => {
    const events = shift();
    const values = events.map(text);
    values.splice(5, 0, Buffer.from('not json'));
    const book = new SummaryBook();
    const applied: string[] = [];
    book.applyIntervals = (_a, _g, closed, opened) => void applied.push(...[...closed, ...opened].map((i) => i.key));
    const ingest = inProcess();
    const handled = await summariesRawHandler(ingest, book, new AccountFlags(), { chunk: 2 })(messages(values), ctx);
    expect(handled).toEqual({ handled: 5, duplicates: 0 });
    // Every chunk settled: the three read up to the invalid message applied, the one after it not.
    await new Promise((r) => setImmediate(r));
    expect(ingest.settled.sort()).toEqual([
      [1, true],
      [2, true],
      [3, true],
      [4, false],
    ]);
    expect(ingest.reader.pending()).toBe(0);
    // The chunk not applied here is read again when redelivered (its events were not applied here).
    const again = await ingest.read(activity, messages(values.slice(6)));
    expect([...readItems(again)]).toHaveLength(2);
    // Chunks [0,1] [2,3] [4,x]: the events of the first five messages, nothing of the chunk after the invalid one.
    expect(applied).toEqual(
      events.slice(0, 5).flatMap((e) => {
        const { closed, opened } = intervalsOf(e as never);
        return [...closed, ...opened].map((i) => i.key);
      }),
    );
  });

  it('keeps what earlier chunks applied when the worker fails on a later one, and fails when it fails on the first', async () => {
    const values = shift().map(text);
    const book = new SummaryBook();
    const raw = summariesRawHandler(
      inProcess((call) => call === 3),
      book,
      new AccountFlags(),
      { chunk: 2 },
    );
    expect(await raw(messages(values), ctx)).toEqual({ handled: 4, duplicates: 0 });
    const failing = summariesRawHandler(
      inProcess(() => true),
      new SummaryBook(),
      new AccountFlags(),
      { chunk: 2 },
    );
    await expect(failing(messages(values), ctx)).rejects.toThrow('worker gone');
  });

  it('applies an account flag event', async () => {
    const flags = new AccountFlags();
    const flag = flagEvent();
    const log = { warn: () => undefined, info: () => undefined };
    const handled = await summariesRawHandler(
      inProcess(),
      new SummaryBook(),
      flags,
    )(messages([text(flag)]), {
      ...ctx,
      topic: 'cc.account.v1',
      log,
    } as unknown as BatchContext);
    expect(handled).toEqual({ handled: 1, duplicates: 0 });
    expect(flags.enabled(acc)).toBe(true);
  });
});

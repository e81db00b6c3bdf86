import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import mongoose, { type Connection, Schema } from 'mongoose';
import { createLogger } from '../../kit/src/logger';
import { createMetrics } from '../../kit/src/metrics';
import { tenantScoped } from '../../store/src';
import { eventually, freshName, testInfra } from '../../testing/src';
import {
  type CloudEvent,
  createKafka,
  deadLetterCollection,
  EventProducer,
  EventSchemas,
  ensureTopics,
  InvalidEventError,
  mongoDeduper,
  newEvent,
  type OutboxEntry,
  type OutboxModel,
  OutboxRelay,
  outboxEntries,
  outboxField,
  stagedFields,
  startConsumer,
  withEvents,
} from '../src';

const logger = createLogger('bus-test', 'silent');
const schemas = new EventSchemas({
  'order.placed': { type: 'object', required: ['qty'], properties: { qty: { type: 'integer', minimum: 1 } } },
});
const placed = (qty: unknown, subject = 'o1') =>
  newEvent({ source: '/cc/test', type: 'order.placed', subject, accountId: 'acc1', data: { qty } });

let kafka: Kafka;
let producer: EventProducer;
let conn: Connection;
const consumers: Consumer[] = [];

beforeAll(async () => {
  const infra = await testInfra();
  kafka = createKafka({ brokers: infra.kafkaBrokers, clientId: 'bus-test', logger });
  producer = new EventProducer(kafka, schemas, logger);
  await producer.connect();
  conn = await mongoose.createConnection(infra.mongoUrl, { dbName: freshName('bus') }).asPromise();
});
afterAll(async () => {
  await Promise.all(consumers.map((c) => c.disconnect()));
  await producer.disconnect();
  await conn.dropDatabase().catch(() => undefined);
  await conn.close();
});

async function topicPair() {
  const topic = freshName('t');
  const group = freshName('g');
  await ensureTopics(
    kafka,
    [topic, `${group}.dlq`].map((t) => ({ topic: t, numPartitions: 2 })),
  );
  return { topic, group, dlq: `${group}.dlq` };
}

/** Reads every message of a topic (e.g. a dead-letter topic) into an array as they arrive. */
async function collect(topic: string) {
  const got: { value: string; headers: Record<string, string> }[] = [];
  const c = kafka.consumer({ groupId: freshName('reader') });
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  await c.run({
    eachMessage: async ({ message }) => {
      const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
      got.push({ value: message.value?.toString() ?? '', headers });
    },
  });
  consumers.push(c);
  return got;
}

async function consume(topic: string, group: string, handler: (e: CloudEvent) => Promise<void>, extra = {}) {
  const c = await startConsumer({
    kafka,
    groupId: group,
    topics: [topic],
    schemas,
    producer,
    handler,
    logger,
    retryBaseMs: 20,
    ...extra,
  });
  consumers.push(c);
  return c;
}

describe('bus on a real broker', () => {
  it('round-trips a valid event and refuses to publish an invalid one', async () => {
    const { topic, group } = await topicPair();
    const seen: CloudEvent[] = [];
    await consume(topic, group, async (e) => void seen.push(e));
    const e = placed(3);
    await producer.publish(topic, [e]);
    await expect(producer.publish(topic, [placed(0)])).rejects.toThrow(/\/data\/qty: qty must be at least 1/);
    await eventually(() => seen.length === 1, { what: 'event consumed' });
    expect(seen[0]).toMatchObject({ id: e.id, type: 'order.placed', accountid: 'acc1', data: { qty: 3 } });
  });

  it('dead-letters an invalid event at once and keeps consuming after it', async () => {
    const { topic, group, dlq } = await topicPair();
    const seen: CloudEvent[] = [];
    let calls = 0;
    await consume(topic, group, async (e) => {
      calls++;
      seen.push(e);
    });
    const dead = await collect(dlq);
    const bad = { ...placed(1, 'same'), data: { qty: 'many' } };
    await producer.sendRaw(topic, [{ key: 'acc1:same', value: JSON.stringify(bad), headers: {} }]);
    await producer.sendRaw(topic, [{ key: 'acc1:same', value: 'not json', headers: {} }]);
    await producer.publish(topic, [placed(2, 'same')]);
    await eventually(() => seen.length === 1 && dead.length === 2, {
      what: 'valid event handled and two dead-lettered',
    });
    expect(calls).toBe(1);
    expect(dead[0]?.headers['x-dlq-error']).toMatch(/\/data\/qty: qty must be an integer/);
    expect(dead[1]?.headers['x-dlq-error']).toMatch(/unparseable/);
    expect(dead[0]?.headers['x-dlq-source-topic']).toBe(topic);
  });

  it('skips and counts an event of an unknown type (a newer producer), dead-letters a known type on the wrong topic', async () => {
    const { topic, group, dlq } = await topicPair();
    const metrics = createMetrics('bus-test');
    const withTopics = new EventSchemas(
      {
        'order.placed': { type: 'object', required: ['qty'], properties: { qty: { type: 'integer', minimum: 1 } } },
        'order.shipped': { type: 'object' },
      },
      { [topic]: ['order.placed'] },
    );
    const seen: string[] = [];
    await consume(topic, group, async (e) => void seen.push(e.id), { metrics, schemas: withTopics });
    const dead = await collect(dlq);
    const future = newEvent({ source: '/cc/test', type: 'order.refunded', subject: 'o1', accountId: 'acc1', data: {} });
    const elsewhere = newEvent({
      source: '/cc/test',
      type: 'order.shipped',
      subject: 'o1',
      accountId: 'acc1',
      data: {},
    });
    for (const e of [future, elsewhere])
      await producer.sendRaw(topic, [{ key: 'acc1:o1', value: JSON.stringify(e), headers: {} }]);
    const marker = placed(4, 'o1'); // same key, same partition: handled after both
    await producer.publish(topic, [marker]);
    await eventually(() => seen.includes(marker.id) && dead.length === 1, { what: 'marker handled, one dead letter' });
    expect(seen).toEqual([marker.id]);
    expect(JSON.parse(dead[0]?.value ?? '{}').id).toBe(elsewhere.id);
    expect(dead[0]?.headers['x-dlq-error']).toMatch(`type order.shipped is not carried on ${topic}`);
    const counted = await metrics.consumedEvents.get();
    const outcome = (name: string) => counted.values.find((v) => v.labels.outcome === name)?.value;
    expect(outcome('skipped_unknown_type')).toBe(1);
    expect(outcome('dead_lettered')).toBe(1);
    expect(outcome('handled')).toBe(1);
  });

  it('retries a failing handler a bounded number of times, then dead-letters with the error in headers', async () => {
    const { topic, group, dlq } = await topicPair();
    let attempts = 0;
    await consume(
      topic,
      group,
      async () => {
        attempts++;
        throw new Error('downstream said no');
      },
      { maxAttempts: 3 },
    );
    const dead = await collect(dlq);
    await producer.publish(topic, [placed(5)]);
    await eventually(() => dead.length === 1, { what: 'dead letter' });
    expect(attempts).toBe(3);
    expect(dead[0]?.headers['x-dlq-error']).toBe('Error: downstream said no');
    expect(dead[0]?.headers['x-dlq-attempts']).toBe('3');
    expect(JSON.parse(dead[0]?.value ?? '{}').data).toEqual({ qty: 5 });
  });

  it('handles a redelivered event once (dedupe by event id)', async () => {
    const { topic, group } = await topicPair();
    const handled: string[] = [];
    await consume(topic, group, async (e) => void handled.push(e.id), { deduper: mongoDeduper(conn, group) });
    const e = placed(1);
    await producer.publish(topic, [e]);
    await producer.publish(topic, [e]); // the same event again, as after a producer retry or relay re-send
    const marker = placed(9);
    await producer.publish(topic, [marker]);
    await eventually(() => handled.includes(marker.id), { what: 'marker handled' });
    expect(handled.filter((id) => id === e.id)).toHaveLength(1);
  });

  it('hands each valid event to the synchronous fast path, goes on event by event from a message it cannot take or a throw', async () => {
    const { topic, group, dlq } = await topicPair();
    const fast: number[] = [];
    const single: number[] = [];
    const dead = await collect(dlq);
    // All on one key (one partition), published before the consumer starts: they arrive as one fetched batch.
    await producer.publish(topic, [placed(1, 'k'), placed(2, 'k'), placed(3, 'k')]);
    await consume(topic, group, async (e) => void single.push((e.data as { qty: number }).qty), {
      handleEach: (e: CloudEvent) => {
        const qty = (e.data as { qty: number }).qty;
        if (qty === 5) throw new Error('fast path broke');
        fast.push(qty);
      },
    });
    await eventually(() => fast.length === 3, { what: 'first batch handled on the fast path' });
    expect(fast).toEqual([1, 2, 3]);
    expect(single).toEqual([]);
    // A throw at 5: 4 stays on the fast path, 5 and what follows it in the batch go through the per-event handler.
    await producer.sendRaw(
      topic,
      [4, 5, 6].map((q) => ({ key: 'acc1:k', value: JSON.stringify(placed(q, 'k')), headers: {} })),
    );
    await eventually(() => single.length === 2, { what: 'the rest handled event by event' });
    expect(fast).toEqual([1, 2, 3, 4]);
    expect(single).toEqual([5, 6]);
    // Invalid messages (one send, so one fetch): 7 on the fast path, then the per-event path dead-letters the
    // invalid ones (not JSON; a lone surrogate, written as a `\u` escape) and handles 8; the same event twice in the
    // batch is handled once.
    const twice = placed(7, 'k');
    const lone = JSON.stringify(placed(9, 'k\ud800'));
    expect(lone).toContain('\\ud800');
    await producer.sendRaw(topic, [
      { key: 'acc1:k', value: JSON.stringify(twice), headers: {} },
      { key: 'acc1:k', value: JSON.stringify(twice), headers: {} },
      { key: 'acc1:k', value: 'not json', headers: {} },
      { key: 'acc1:k', value: lone, headers: {} },
      { key: 'acc1:k', value: JSON.stringify(placed(8, 'k')), headers: {} },
    ]);
    await eventually(() => single.length === 3 && dead.length === 2, { what: 'invalid dead-lettered, 8 handled' });
    expect(fast).toEqual([1, 2, 3, 4, 7]);
    expect(single).toEqual([5, 6, 8]);
    expect(dead[1]?.headers['x-dlq-error']).toContain('lone surrogate');
  });

  it('hands each fetched batch raw to handleRaw, goes on event by event from the count it returns or after it rejects', async () => {
    const { topic, group, dlq } = await topicPair();
    const raw: number[] = [];
    const single: number[] = [];
    const dead = await collect(dlq);
    // Reads messages as a worker would (JSON only), up to the first it cannot take; fails a whole batch holding 50.
    const handleRaw = async (messages: KafkaMessage[]) => {
      const values = messages.map((m) => {
        try {
          return (JSON.parse(m.value?.toString() ?? '') as { data: { qty: number } }).data.qty;
        } catch {
          return undefined;
        }
      });
      if (values.includes(50)) throw new Error('worker gone');
      let n = 0;
      while (n < values.length && typeof values[n] === 'number' && values[n] !== 5) raw.push(values[n++] as number);
      return n;
    };
    await producer.publish(topic, [placed(1, 'k'), placed(2, 'k'), placed(3, 'k')]);
    await consume(topic, group, async (e) => void single.push((e.data as { qty: number }).qty), { handleRaw });
    await eventually(() => raw.length === 3, { what: 'first batch handled raw' });
    expect(raw).toEqual([1, 2, 3]);
    expect(single).toEqual([]);
    // 4 raw; 5 (the raw path stops before it) and what follows go through the per-event handler; the invalid message
    // after them is dead-lettered there.
    await producer.sendRaw(topic, [
      ...[4, 5, 6].map((q) => ({ key: 'acc1:k', value: JSON.stringify(placed(q, 'k')), headers: {} })),
      { key: 'acc1:k', value: 'not json', headers: {} },
    ]);
    await eventually(() => single.length === 2 && dead.length === 1, { what: 'the rest handled event by event' });
    expect(raw).toEqual([1, 2, 3, 4]);
    expect(single).toEqual([5, 6]);
    // A rejected batch goes event by event whole; the next batch is raw again.
    await producer.sendRaw(
      topic,
      [49, 50].map((q) => ({ key: 'acc1:k', value: JSON.stringify(placed(q, 'k')), headers: {} })),
    );
    await eventually(() => single.length === 4, { what: 'the failed batch handled event by event' });
    expect(single).toEqual([5, 6, 49, 50]);
    await producer.publish(topic, [placed(7, 'k')]);
    await eventually(() => raw.includes(7), { what: 'raw again' });
    expect(single).toEqual([5, 6, 49, 50]);
    await expect(
      consume(topic, freshName('g'), async () => undefined, { handleRaw, deduper: mongoDeduper(conn, group) }),
    ).rejects.toThrow('handleRaw cannot be combined with a deduper');
  });

  it('counts the repeats handleRaw says it skipped as duplicates, the rest as handled', async () => {
    const { topic, group } = await topicPair();
    const metrics = createMetrics('bus-test');
    const told: number[] = [];
    // Skips the messages whose qty it saw before, as a worker deduplicating by event id would.
    const seenQty = new Set<number>();
    const handleRaw = async (messages: KafkaMessage[]) => {
      let duplicates = 0;
      for (const m of messages) {
        const qty = (JSON.parse(m.value?.toString() ?? '') as { data: { qty: number } }).data.qty;
        if (seenQty.has(qty)) duplicates++;
        seenQty.add(qty);
      }
      told.push(messages.length);
      return { handled: messages.length, duplicates };
    };
    await producer.publish(topic, [placed(1, 'k'), placed(2, 'k'), placed(1, 'k'), placed(3, 'k'), placed(2, 'k')]);
    await consume(topic, group, async () => undefined, { handleRaw, metrics });
    await eventually(() => told.reduce((a, b) => a + b, 0) === 5, { what: 'five messages handled raw' });
    const counted = await metrics.consumedEvents.get();
    const outcome = (name: string) => counted.values.find((v) => v.labels.outcome === name)?.value;
    expect(outcome('handled')).toBe(3);
    expect(outcome('duplicate')).toBe(2);
  });

  it('commits offsets only after handling: a new consumer in the same group does not see handled events again', async () => {
    const { topic, group } = await topicPair();
    const first: string[] = [];
    const c1 = await consume(topic, group, async (e) => void first.push(e.id));
    const events = [placed(1, 'a'), placed(2, 'b'), placed(3, 'c')];
    await producer.publish(topic, events);
    await eventually(() => first.length === 3, { what: 'three handled' });
    await c1.disconnect();
    const second: string[] = [];
    await consume(topic, group, async (e) => void second.push(e.id));
    const later = placed(4, 'd');
    await producer.publish(topic, [later]);
    await eventually(() => second.includes(later.id), { what: 'later event' });
    expect(second).toEqual([later.id]);
  });
});

describe('producer after a partly refused send', () => {
  it('sends again to the partitions the broker wrote of a refused send: nothing dropped, nothing refused', async () => {
    const topic = freshName('small');
    // Messages of at most 1,000 bytes: a larger one is refused, and not retried, by the broker.
    await ensureTopics(kafka, [
      { topic, numPartitions: 2, configEntries: [{ name: 'max.message.bytes', value: '1000' }] },
    ]);
    const got = await collect(topic);
    const values = () => got.map((m) => m.value);
    const p = new EventProducer(kafka, schemas, logger);
    await p.connect();
    try {
      // murmur2 puts k0-k2 on one partition, k3-k5 and "big" on the other: the broker writes the first, refuses the
      // second. kafkajs 2.2.4 took back the first's sequence numbers too, so the same count of messages sent there
      // next was acknowledged as a duplicate and dropped (another count: refused as out of order, and every send
      // after it); patches/kafkajs@2.2.4.patch keeps the sequence numbers of the partitions the broker wrote.
      const keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
      await expect(
        p.sendRaw(topic, [
          ...keys.map((key) => ({ key, value: `small-${key}`, headers: {} })),
          { key: 'big', value: 'x'.repeat(5000), headers: {} },
        ]),
      ).rejects.toThrow(/larger than the max message size/);
      await eventually(() => ['k0', 'k1', 'k2'].every((k) => values().includes(`small-${k}`)), {
        what: 'the written partition of the refused send',
      });
      expect(values().filter((v) => ['small-k3', 'small-k4', 'small-k5'].includes(v))).toEqual([]);
      await p.sendRaw(
        topic,
        keys.map((key) => ({ key, value: `again-${key}`, headers: {} })),
      );
      await p.sendRaw(topic, [{ key: 'k1', value: 'last-k1', headers: {} }]);
      await eventually(() => [...keys.map((k) => `again-${k}`), 'last-k1'].every((v) => values().includes(v)), {
        what: 'every later message',
      });
    } finally {
      await p.disconnect();
    }
  });
});

describe('pipelined writes (writesInFlight)', () => {
  async function committed(group: string, topic: string) {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const [t] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      return (t?.partitions ?? []).reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
    } finally {
      await admin.disconnect();
    }
  }

  it('handles the next batches while a write runs and commits a batch only once its write landed', async () => {
    const { topic, group } = await topicPair();
    const handled: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let flushes = 0;
    await consume(topic, group, async (e) => void handled.push(e.id), {
      writesInFlight: 8,
      flush: async () => {
        flushes++;
        await gate; // every write hangs until released
      },
    });
    const first = placed(1, 'a');
    await producer.publish(topic, [first]);
    await eventually(() => handled.includes(first.id) && flushes >= 1, { what: 'first batch handled' });
    const second = placed(2, 'a'); // same key, same partition: fetched while the first write still hangs
    await producer.publish(topic, [second]);
    await eventually(() => handled.includes(second.id), { what: 'next batch handled during the write' });
    expect(await committed(group, topic)).toBe(0);
    release();
    await eventually(async () => (await committed(group, topic)) === 2, { what: 'both committed after the write' });
  });

  it('gives up a write that outlasts the drain at shutdown: disconnect returns, nothing commits, the next owner gets the batch', async () => {
    const { topic, group } = await topicPair();
    const handled: string[] = [];
    let flushes = 0;
    const c = await consume(topic, group, async (e) => void handled.push(e.id), {
      writesInFlight: 8,
      drainTimeoutMs: 300,
      flush: async () => {
        flushes++;
        await new Promise(() => undefined); // a store write that never lands
      },
    });
    const e = placed(5, 'c');
    await producer.publish(topic, [e]);
    await eventually(() => handled.includes(e.id) && flushes >= 1, { what: 'batch handled, its write started' });
    await c.disconnect(); // before drainTimeoutMs existed, this waited for the write forever
    expect(await committed(group, topic)).toBe(0);
    const next: string[] = [];
    await consume(topic, group, async (ev) => void next.push(ev.id), {
      writesInFlight: 8,
      flush: async () => undefined,
    });
    await eventually(() => next.includes(e.id), { what: 'the given-up batch redelivered to the next owner' });
    await eventually(async () => (await committed(group, topic)) === 1, { what: 'committed by the next owner' });
  });

  it('rewinds a partition whose write failed: its events are handled again and committed after a good write', async () => {
    const { topic, group } = await topicPair();
    const handled: string[] = [];
    let failures = 1;
    await consume(topic, group, async (e) => void handled.push(e.id), {
      writesInFlight: 8,
      flush: async () => {
        if (failures-- > 0) throw new Error('store down');
      },
    });
    const e = placed(3, 'b');
    await producer.publish(topic, [e]);
    await eventually(() => handled.filter((id) => id === e.id).length === 2, { what: 'handled again after rewind' });
    await eventually(async () => (await committed(group, topic)) === 1, { what: 'committed after the good write' });
  });
});

describe('outbox', () => {
  /** An outbox aggregate in a collection of its own (no `qty`), for tests that count what a sweep reads. */
  const ownModel = (name: string): OutboxModel =>
    conn.models[name] ??
    conn.model(name, new Schema({ _id: String, accountId: String, ...outboxField }, { versionKey: false }));
  const Order = (): OutboxModel =>
    conn.models.Order ??
    conn.model(
      'Order',
      new Schema({ _id: String, accountId: String, qty: Number, ...outboxField }, { versionKey: false }),
    );

  it('delivers an event whose publish never happened (relay killed between write and publish)', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    const e = placed(7, 'order-42');
    // The state change and its pending event in one single-document write; the process "dies" before publishing.
    await Order().create({ _id: 'order-42', accountId: 'acc1', qty: 7, outbox: outboxEntries(topic, [e]) });
    // The sweep runs at start (a restarted instance finds what its predecessor left), then only every minute.
    const relay = new OutboxRelay({ models: [Order()], producer, logger, graceMs: 0, sweepMs: 60_000 });
    relay.start();
    try {
      await eventually(() => got.length === 1, { what: 'relayed event' });
      await eventually(
        async () => (await Order().findById('order-42').lean<{ outbox: unknown[] }>())?.outbox.length === 0,
        {
          what: 'outbox emptied',
        },
      );
    } finally {
      await relay.stop();
    }
    expect(JSON.parse(got[0]?.value ?? '{}').id).toBe(e.id);
  });

  it('relays entries staged before events were kept as text (the event object) in order with new ones', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    const old = placed(8, 'order-44');
    const next = placed(9, 'order-44');
    // An outbox a previous version left: the event stored as an object, beside one staged as text now.
    const legacy = { _id: old.id, topic, event: old, createdAt: new Date() };
    await Order().collection.insertOne({
      _id: 'order-44',
      accountId: 'acc1',
      qty: 9,
      outbox: [legacy, ...outboxEntries(topic, [next])],
      outboxSeq: 2,
    } as never);
    const relay = new OutboxRelay({ models: [Order()], producer, logger });
    await relay.flush(Order(), 'order-44');
    await eventually(() => got.length === 2, { what: 'both events' });
    expect(got.map((m) => JSON.parse(m.value))).toEqual([old, next]);
    expect(await Order().findById('order-44').lean<{ outbox: unknown[] }>()).toMatchObject({ outbox: [] });
  });

  it('publishes eagerly in order and leaves nothing pending', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    await Order().create({ _id: 'order-43', accountId: 'acc1', qty: 1 });
    const a = placed(1, 'order-43');
    const b = placed(2, 'order-43');
    await Order().updateOne({ _id: 'order-43' }, withEvents({ $set: { qty: 2 } }, topic, [a, b]));
    const relay = new OutboxRelay({ models: [Order()], producer, logger });
    await relay.flush(Order(), 'order-43');
    await eventually(() => got.length === 2, { what: 'two events' });
    expect(got.map((m) => JSON.parse(m.value).id)).toEqual([a.id, b.id]);
    const doc = await Order().findById('order-43').lean<{ qty: number; outbox: unknown[] }>();
    expect(doc).toMatchObject({ qty: 2, outbox: [], outboxPending: false });
    expect(await relay.runOnce()).toBe(0);
  });

  it('flags a document pending from the write that staged entries until they are cleared', async () => {
    const { topic } = await topicPair();
    await Order().create({ _id: 'order-60', accountId: 'acc1', qty: 1, ...stagedFields(outboxEntries(topic, [])) });
    expect(await Order().findById('order-60').lean()).not.toHaveProperty('outboxPending');
    await Order().updateOne({ _id: 'order-60' }, withEvents({ $set: { qty: 2 } }, topic, [placed(1, 'order-60')]));
    expect(await Order().findById('order-60').lean()).toMatchObject({ qty: 2, outboxSeq: 1, outboxPending: true });
    await new OutboxRelay({ models: [Order()], producer, logger }).flush(Order(), 'order-60');
    expect(await Order().findById('order-60').lean()).toMatchObject({ outbox: [], outboxPending: false });
  });

  it('sweeps only flagged documents periodically; a full sweep also finds entries a version before the flag left', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    const flagged = placed(5, 'order-61');
    const unflagged = placed(6, 'order-62');
    await Order().create({
      _id: 'order-61',
      accountId: 'acc1',
      qty: 5,
      ...stagedFields(outboxEntries(topic, [flagged])),
    });
    // Written by a version before `outboxPending`: entries, no flag.
    await Order().collection.insertOne({
      _id: 'order-62',
      accountId: 'acc1',
      qty: 6,
      outbox: outboxEntries(topic, [unflagged]),
      outboxSeq: 1,
    } as never);
    const relay = new OutboxRelay({ models: [Order()], producer, logger, graceMs: 0 });
    await relay.runOnce(0, { pendingOnly: true });
    await eventually(() => got.length, { accept: (n) => n >= 1, what: 'the flagged entry' });
    expect(await Order().findById('order-61').lean()).toMatchObject({ outbox: [], outboxPending: false });
    expect(await Order().findById('order-62').lean<{ outbox: unknown[] }>()).toMatchObject({ outbox: [{}] });
    await relay.runOnce(0);
    await eventually(() => got.length, { accept: (n) => n >= 2, what: 'the unflagged entry' });
    expect(got.map((m) => JSON.parse(m.value).id)).toEqual([flagged.id, unflagged.id]);
    expect(await Order().findById('order-62').lean()).toMatchObject({ outbox: [], outboxPending: false });
  });

  it('drains more than one batch in one sweep, going past a document it cannot publish', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    const Drained = ownModel('Drained');
    const bad = { ...placed(1, 'd-bad'), data: { qty: 'not a number' } } as CloudEvent; // never publishable
    await Drained.create({ _id: 'd-bad', accountId: 'acc1', ...stagedFields(outboxEntries(topic, [bad])) });
    // Five flagged documents, then five a version before the flag left; each sweep reads two at a time.
    const flagged = [1, 2, 3, 4, 5].map((i) => placed(i, `d-f${i}`));
    for (const e of flagged)
      await Drained.create({ _id: `${e.subject}`, accountId: 'acc1', ...stagedFields(outboxEntries(topic, [e])) });
    const unflagged = [6, 7, 8, 9, 10].map((i) => placed(i, `d-u${i}`));
    for (const e of unflagged)
      await Drained.collection.insertOne({
        _id: `${e.subject}`,
        accountId: 'acc1',
        outbox: outboxEntries(topic, [e]),
        outboxSeq: 1,
      } as never);
    // The real producer, watched: how often the sweep tried the unpublishable document.
    const tried = jest.spyOn(producer, 'publish');
    const triedBad = () => tried.mock.calls.filter(([, events]) => events.some((e) => e.id === bad.id)).length;
    try {
      const relay = new OutboxRelay({ models: [Drained], producer, logger, graceMs: 0, batchSize: 2 });
      expect(await relay.runOnce(0, { pendingOnly: true })).toBe(5);
      expect(triedBad()).toBe(1); // once per sweep, not once per batch
      await eventually(() => got.length, { accept: (n) => n >= 5, what: 'the flagged entries' });
      expect(new Set(got.map((m) => JSON.parse(m.value).id))).toEqual(new Set(flagged.map((e) => e.id)));
      expect(await relay.runOnce(0)).toBe(5);
      expect(triedBad()).toBe(1); // it failed in the sweep before: this one passes it
      await eventually(() => got.length, { accept: (n) => n >= 10, what: 'the unflagged entries' });
      expect(new Set(got.slice(5).map((m) => JSON.parse(m.value).id))).toEqual(new Set(unflagged.map((e) => e.id)));
      expect(await relay.runOnce(0)).toBe(0);
      expect(triedBad()).toBe(2);
    } finally {
      tried.mockRestore();
    }
    const left = await Drained.find({ 'outbox.0': { $exists: true } }, { _id: 1 }).lean();
    expect(left.map((d) => d._id)).toEqual(['d-bad']); // kept for inspection; everything else cleared
    expect(await Drained.countDocuments({ outboxPending: true })).toBe(1);
  });

  it('reaches what follows batchSize invalid documents, and the sweeps after one fails pass it', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    const Poisoned = ownModel('Poisoned');
    // Two never-publishable documents first in natural order; two failures in a row would end a sweep reading two
    // at a time, were they not invalid events (which say nothing about the broker).
    const bad = ['p-bad1', 'p-bad2'].map((id) => ({ ...placed(1, id), data: { qty: 'not a number' } }) as CloudEvent);
    const good = placed(3, 'p-good');
    for (const e of [...bad, good])
      await Poisoned.create({ _id: `${e.subject}`, accountId: 'acc1', ...stagedFields(outboxEntries(topic, [e])) });
    const tried = jest.spyOn(producer, 'publish');
    const tries = (id: string) => tried.mock.calls.filter(([, events]) => events.some((e) => e.id === id)).length;
    try {
      const relay = new OutboxRelay({ models: [Poisoned], producer, logger, graceMs: 0, batchSize: 2 });
      expect(await relay.runOnce(0, { pendingOnly: true })).toBe(1); // past both, to p-good
      await eventually(() => got.length, { accept: (n) => n >= 1, what: "p-good's event" });
      expect(JSON.parse(got[0]?.value as string).id).toBe(good.id);
      expect(bad.map((e) => tries(e.id))).toEqual([1, 1]);
      expect(await relay.runOnce(0, { pendingOnly: true })).toBe(0);
      expect(bad.map((e) => tries(e.id))).toEqual([1, 1]); // passed: they failed in the sweep before
      // Then the pause after each failure doubles: tried in sweeps 3 and 6, passed in 4 and 5.
      const afterSweep = [];
      for (let i = 0; i < 4; i++) {
        await relay.runOnce(0, { pendingOnly: true });
        afterSweep.push(bad.map((e) => tries(e.id)));
      }
      expect(afterSweep).toEqual([
        [2, 2],
        [2, 2],
        [2, 2],
        [3, 3],
      ]);
    } finally {
      tried.mockRestore();
    }
    expect(await Poisoned.countDocuments({ outboxPending: true })).toBe(2); // kept for inspection
  });

  it('sets aside an entry whose text does not parse, sends what follows it, and such documents do not end the sweep', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    const Corrupt = ownModel('Corrupt');
    const after = placed(2, 'x-bad1');
    const unreadable: OutboxEntry[] = [];
    for (const id of ['x-bad1', 'x-bad2']) {
      const [entry, next] = outboxEntries(topic, [placed(1, id), after]);
      const bad = { ...(entry as OutboxEntry), event: '{"specversion":"1.0",' };
      unreadable.push(bad);
      await Corrupt.create({
        _id: id,
        accountId: 'acc1',
        ...stagedFields(id === 'x-bad1' ? [bad, next as OutboxEntry] : [bad]),
      });
    }
    const good = placed(3, 'x-good');
    await Corrupt.create({ _id: 'x-good', accountId: 'acc1', ...stagedFields(outboxEntries(topic, [good])) });
    const relay = new OutboxRelay({ models: [Corrupt], producer, logger, graceMs: 0, batchSize: 2 });
    expect(await relay.runOnce(0, { pendingOnly: true })).toBe(2);
    await eventually(() => got.length, { accept: (n) => n >= 2, what: "x-bad1's second event and x-good's" });
    expect(got.map((m) => JSON.parse(m.value).id).sort()).toEqual([after.id, good.id].sort());
    expect(await Corrupt.countDocuments({ outboxPending: true })).toBe(0);
    const letters = await conn
      .collection(deadLetterCollection)
      .find({ collection: Corrupt.collection.name })
      .sort({ documentId: 1 })
      .toArray();
    expect(letters).toEqual(
      ['x-bad1', 'x-bad2'].map((documentId, i) =>
        expect.objectContaining({
          documentId,
          eventId: unreadable[i]?._id,
          event: '{"specversion":"1.0",',
          type: null,
          refusal: null,
          reason: expect.stringMatching(/unparseable event text: /),
        }),
      ),
    );
    // Unreadable text before an event that fails its schema (a newer version's, maybe): nothing is sent, no letter
    // written, the document kept as it is until the schema lets it go.
    const [first, second] = outboxEntries(topic, [placed(4, 'x-both'), { ...placed(5, 'x-both'), data: { qty: 0 } }]);
    const both = [{ ...(first as OutboxEntry), event: '{' }, second as OutboxEntry];
    await Corrupt.create({ _id: 'x-both', accountId: 'acc1', ...stagedFields(both) });
    const sent = jest.spyOn(producer, 'publish');
    try {
      await expect(relay.setAside(Corrupt, 'x-both')).rejects.toThrow(/order\.placed: \/data\/qty/);
      expect(sent).not.toHaveBeenCalled();
    } finally {
      sent.mockRestore();
    }
    expect(await conn.collection(deadLetterCollection).countDocuments({ documentId: 'x-both' })).toBe(0);
    expect(await Corrupt.findById('x-both').lean()).toMatchObject({ outboxPending: true, outbox: both });
  });

  it('reads at most batchSize x maxBatches documents per collection in one sweep; the next sweep goes on', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    const Capped = ownModel('Capped');
    const events = [1, 2, 3, 4, 5].map((i) => placed(i, `c-${i}`));
    for (const e of events)
      await Capped.create({ _id: `${e.subject}`, accountId: 'acc1', ...stagedFields(outboxEntries(topic, [e])) });
    const relay = new OutboxRelay({ models: [Capped], producer, logger, graceMs: 0, batchSize: 2, maxBatches: 2 });
    expect(await relay.runOnce(0, { pendingOnly: true })).toBe(4);
    expect(await Capped.countDocuments({ outboxPending: true })).toBe(1);
    expect(await relay.runOnce(0, { pendingOnly: true })).toBe(1);
    await eventually(() => got.length, { accept: (n) => n >= 5, what: 'all five events' });
    expect(new Set(got.map((m) => JSON.parse(m.value).id))).toEqual(new Set(events.map((e) => e.id)));
    expect(await Capped.countDocuments({ outboxPending: true })).toBe(0);
  });

  it('passes documents this process publishes itself (held, or on a retry timer) until they are released', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    const Held = ownModel('Held');
    const events = ['h1', 'h2', 'h3'].map((id, i) => placed(i + 1, id));
    for (const e of events)
      await Held.create({ _id: `${e.subject}`, accountId: 'acc1', ...stagedFields(outboxEntries(topic, [e])) });
    const relay = new OutboxRelay({ models: [Held], producer, logger, graceMs: 0 });
    // h1 is queued for an eager publication twice (two holders); h2 waits for its retry timer.
    const first = relay.hold(Held, ['h1']);
    const second = relay.hold(Held, ['h1']);
    relay.later(Held, 'h2', 600_000);
    const sent = jest.spyOn(producer, 'publish');
    const sentIds = () => sent.mock.calls.flatMap(([, evs]) => evs.map((e) => e.subject));
    try {
      expect(await relay.runOnce(0, { pendingOnly: true })).toBe(1);
      expect(sentIds()).toEqual(['h3']);
      first();
      first(); // a second call of one release does nothing: the other holder still holds h1
      expect(await relay.runOnce(0, { pendingOnly: true })).toBe(0);
      second();
      relay.forget(Held, 'h2'); // its timer is cancelled: nobody here publishes it any more
      expect(await relay.runOnce(0, { pendingOnly: true })).toBe(2);
      expect(sentIds().sort()).toEqual(['h1', 'h2', 'h3']); // each once
    } finally {
      sent.mockRestore();
      await relay.stop();
    }
    await eventually(() => got.length, { accept: (n) => n >= 3, what: 'the three events' });
    expect(await Held.countDocuments({ outboxPending: true })).toBe(0);
  });

  it('does not re-send a document whose hold ended after the sweep read it (it reads the document again)', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    const Raced = ownModel('Raced');
    // r1 first in natural order: the sweep's cursor reads both, then publishes r1 while r2 is still held.
    for (const [i, id] of ['r1', 'r2'].entries())
      await Raced.create({ _id: id, accountId: 'acc1', ...stagedFields(outboxEntries(topic, [placed(i + 1, id)])) });
    const relay = new OutboxRelay({ models: [Raced], producer, logger, graceMs: 0 });
    const release = relay.hold(Raced, ['r2']);
    const publish = producer.publish.bind(producer);
    // While the sweep sends r1, r2's own publication ends as an eager one would: sent, cleared, released.
    const sent = jest.spyOn(producer, 'publish').mockImplementation(async (t, evs, headers) => {
      await publish(t, evs, headers);
      if (evs[0]?.subject === 'r1') {
        await relay.flush(Raced, 'r2');
        release();
      }
    });
    try {
      expect(await relay.runOnce(0, { pendingOnly: true })).toBe(1);
      expect(sent.mock.calls.flatMap(([, evs]) => evs.map((e) => e.subject))).toEqual(['r1', 'r2']); // r2 once
    } finally {
      sent.mockRestore();
      await relay.stop();
    }
    await eventually(() => got.length, { accept: (n) => n >= 2, what: 'the two events' });
    expect(await Raced.countDocuments({ outboxPending: true })).toBe(0);
  });

  it('clears the flag of every document a grouped publish (publishStagedMany) sent', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    const ids = ['order-71', 'order-72', 'order-73'];
    const items = [];
    for (const [i, id] of ids.entries()) {
      const fields = stagedFields(outboxEntries(topic, [placed(i + 1, id)]));
      await Order().create({ _id: id, accountId: 'acc1', qty: 1, ...fields });
      items.push({ id, staged: { entries: fields.outbox, seq: fields.outboxSeq } });
    }
    await new OutboxRelay({ models: [Order()], producer, logger }).publishStagedMany(Order(), items);
    await eventually(() => got.length, { accept: (n) => n >= 3, what: 'three events' });
    const docs = await Order()
      .find({ _id: { $in: ids } }, { outbox: 1, outboxPending: 1 })
      .sort({ _id: 1 })
      .lean();
    expect(docs).toEqual(ids.map((_id) => ({ _id, outbox: [], outboxPending: false })));
  });

  it("sends none of a document's topics when one of its events is invalid (else the first would go again per retry)", async () => {
    const first = await topicPair();
    const second = await topicPair();
    const got = [await collect(first.topic), await collect(second.topic)];
    const Mixed = ownModel('Mixed');
    const valid = placed(2, 'm-1');
    const invalid = { ...placed(3, 'm-1'), data: { qty: 'not a number' } } as CloudEvent;
    const fields = stagedFields([...outboxEntries(first.topic, [valid]), ...outboxEntries(second.topic, [invalid])]);
    await Mixed.create({ _id: 'm-1', accountId: 'acc1', ...fields });
    // A grouped publish of two documents: one's event valid on the first topic, the other's invalid on the second.
    const many = [
      { id: 'm-2', e: placed(4, 'm-2'), topic: first.topic },
      { id: 'm-3', e: { ...placed(6, 'm-3'), data: { qty: 'x' } } as CloudEvent, topic: second.topic },
    ];
    const items = [];
    for (const { id, e, topic } of many) {
      const staged = stagedFields(outboxEntries(topic, [e]));
      await Mixed.create({ _id: id, accountId: 'acc1', ...staged });
      items.push({ id, staged: { entries: staged.outbox, seq: staged.outboxSeq } });
    }
    const sent = jest.spyOn(producer, 'publish');
    const relay = new OutboxRelay({ models: [Mixed], producer, logger });
    try {
      await expect(relay.flush(Mixed, 'm-1')).rejects.toThrow(InvalidEventError);
      await expect(relay.publishStagedMany(Mixed, items)).rejects.toThrow(InvalidEventError);
      expect(sent).not.toHaveBeenCalled();
    } finally {
      sent.mockRestore();
    }
    // A valid event sent later on the first topic arrives alone: nothing of the refused documents went before it.
    await producer.publish(first.topic, [placed(5, 'm-after')]);
    await eventually(() => got[0]?.length ?? 0, { accept: (n) => n >= 1, what: 'the later event' });
    expect(got[0]?.map((m) => JSON.parse(m.value).subject)).toEqual(['m-after']);
    expect(got[1]).toEqual([]);
    expect(await Mixed.countDocuments({ outboxPending: true })).toBe(3); // kept, unsent
  });

  it('sets aside an event the broker refuses for good (too large), sends the rest of its document in order, and does not end the sweep', async () => {
    const topic = freshName('small');
    await ensureTopics(kafka, [
      { topic, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: '1000' }] },
    ]);
    const got = await collect(topic);
    const Big = ownModel('Big');
    const big = (id: string) => ({ ...placed(1, id), data: { qty: 1, note: 'x'.repeat(5000) } }) as CloudEvent;
    const mixed = [placed(3, 'b-mixed'), big('b-mixed'), placed(4, 'b-mixed')];
    const documents: [string, CloudEvent[]][] = [
      ['b-1', [big('b-1')]],
      ['b-2', [big('b-2')]],
      ['b-mixed', mixed],
      ['b-good', [placed(2, 'b-good')]],
    ];
    for (const [id, events] of documents)
      await Big.create({ _id: id, accountId: 'acc1', ...stagedFields(outboxEntries(topic, events)) });
    const metrics = createMetrics('bus-test');
    const relay = new OutboxRelay({ models: [Big], producer, logger, metrics, graceMs: 0, batchSize: 2 });
    // Two refusals in a row would end a sweep reading two at a time, were they counted as broker failures.
    expect(await relay.runOnce(0, { pendingOnly: true })).toBe(3);
    await eventually(() => got.length, { accept: (n) => n >= 3, what: 'the events the broker takes' });
    const arrived = () => got.map((m) => JSON.parse(m.value) as CloudEvent);
    expect(arrived().map((e) => [e.subject, (e.data as { qty: number }).qty])).toEqual([
      ['b-mixed', 3],
      ['b-mixed', 4],
      ['b-good', 2],
    ]);
    expect(await Big.countDocuments({ outboxPending: true })).toBe(0);
    const letters = conn.collection(deadLetterCollection);
    const set = await letters.find({ collection: Big.collection.name }).sort({ documentId: 1 }).toArray();
    const first = (id: string) => documents.find(([d]) => d === id)?.[1][0]?.id;
    expect(set.map((l) => [l.documentId, l.eventId])).toEqual([
      ['b-1', first('b-1')],
      ['b-2', first('b-2')],
      ['b-mixed', mixed[1]?.id],
    ]);
    for (const l of set) {
      expect(l).toMatchObject({
        _id: `${Big.collection.name}:${l.documentId}:${l.eventId}`,
        topic,
        type: 'order.placed',
        refusal: 'MESSAGE_TOO_LARGE',
        reason: expect.stringMatching(/the broker refuses the event for good \(MESSAGE_TOO_LARGE\)/),
      });
      expect(JSON.parse(l.event as string)).toMatchObject({ id: l.eventId, subject: l.documentId });
    }
    expect((await metrics.outboxSetAside.get()).values.reduce((n, v) => n + v.value, 0)).toBe(3);
    // Staged again after its letter was written (as a crash before the clear leaves it): the same letter, cleared.
    await Big.updateOne(
      { _id: 'b-mixed' },
      { $set: { outbox: outboxEntries(topic, [mixed[1] as CloudEvent]), outboxPending: true }, $inc: { outboxSeq: 1 } },
    );
    expect(await relay.runOnce(0, { pendingOnly: true })).toBe(0);
    expect(await letters.countDocuments({ collection: Big.collection.name })).toBe(3);
    expect((await metrics.outboxSetAside.get()).values.reduce((n, v) => n + v.value, 0)).toBe(3); // not counted twice
    expect(await Big.countDocuments({ outboxPending: true })).toBe(0);
    // A retry timer (an eager publish that failed) sets aside too, without waiting for a sweep.
    const late = [big('b-late'), placed(5, 'b-late')];
    await Big.create({ _id: 'b-late', accountId: 'acc1', ...stagedFields(outboxEntries(topic, late)) });
    relay.later(Big, 'b-late', 0);
    await eventually(() => got.length, { accept: (n) => n >= 4, what: "b-late's second event" });
    expect(arrived()[3]).toMatchObject({ id: late[1]?.id });
    await eventually(() => letters.countDocuments({ eventId: late[0]?.id }), {
      accept: (n) => n === 1,
      what: 'its letter',
    });
    await relay.stop();
    // The broker's refusal itself, and a send of several that fit only one at a time (one partition: one batch,
    // refused as too large): sent again one by one, in order, both arrive; before a too-large one, what precedes it.
    await expect(producer.publish(topic, [big('b-x')])).rejects.toMatchObject({
      name: 'RefusedEventError',
      refusal: 'MESSAGE_TOO_LARGE',
      message: expect.stringMatching(
        /^.+: the broker refuses the event for good \(MESSAGE_TOO_LARGE\): .*larger than the max message size/,
      ),
    });
    const mid = (id: string) => ({ ...placed(1, id), data: { qty: 1, note: 'y'.repeat(300) } }) as CloudEvent;
    await producer.publish(topic, [mid('b-3'), mid('b-4')]);
    const b5 = mid('b-5');
    const refused = await producer.publish(topic, [b5, big('b-6'), mid('b-7')]).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidEventError);
    expect(refused).toMatchObject({ name: 'RefusedEventError', published: [b5.id] });
    await eventually(() => got.length, { accept: (n) => n >= 7, what: 'b-3, b-4 and b-5' });
    expect(
      arrived()
        .slice(4)
        .map((e) => e.subject),
    ).toEqual(['b-3', 'b-4', 'b-5']);
  });

  it('sweeps every document at start (twice), then only flagged ones', async () => {
    const watched = await mongoose
      .createConnection((await testInfra()).mongoUrl, { dbName: conn.name, monitorCommands: true })
      .asPromise();
    const filters: Record<string, unknown>[] = [];
    watched.getClient().on('commandStarted', (e) => {
      if (e.commandName === 'find') filters.push(e.command.filter as Record<string, unknown>);
    });
    const model = watched.model('Order', Order().schema) as OutboxModel;
    const relay = new OutboxRelay({ models: [model], producer, logger, graceMs: 50, sweepMs: 100 });
    try {
      relay.start();
      await eventually(() => filters.length, { accept: (n) => n >= 4, what: 'four sweeps' });
    } finally {
      await relay.stop();
      await watched.close();
    }
    expect(filters.slice(0, 4).map((f) => f.outboxPending ?? null)).toEqual([null, null, true, true]);
  });
});

describe('outbox wake-ups', () => {
  const Order = (): OutboxModel => conn.models.Order as OutboxModel;

  it('re-sends a document on a timer for its known due time, without scanning, and is silent between sweeps', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    // A connection of its own with command monitoring: every command the relay sends is counted.
    const watched = await mongoose
      .createConnection((await testInfra()).mongoUrl, { dbName: conn.name, monitorCommands: true })
      .asPromise();
    const commands: string[] = [];
    watched.getClient().on('commandStarted', (e) => commands.push(e.commandName));
    const model = watched.model('Order', Order().schema) as OutboxModel;
    const relay = new OutboxRelay({ models: [model], producer, logger, graceMs: 200, sweepMs: 60_000 });
    try {
      relay.start();
      // The two start-up sweeps (now and after the grace period), then nothing until the next minute.
      await eventually(() => commands.filter((c) => c === 'find').length, {
        accept: (n) => n >= 2,
        what: 'start-up sweeps',
      });
      const afterStart = commands.length;
      await new Promise((r) => setTimeout(r, 1500)); // an idle window: no poll may run in it
      expect(commands.slice(afterStart)).toEqual([]);

      // A write whose eager publish was skipped (or failed): flushed at its due time, by `_id`.
      const e = placed(3, 'order-77');
      await Order().create({ _id: 'order-77', accountId: 'acc1', qty: 3, outbox: outboxEntries(topic, [e]) });
      relay.later(model, 'order-77', 50);
      await eventually(() => got.length, { accept: (n) => n === 1, what: 'the event re-sent on its timer' });
      expect(JSON.parse(got[0]?.value ?? '{}').id).toBe(e.id);
      await eventually(async () => (await Order().findById('order-77').lean<{ outbox: unknown[] }>())?.outbox.length, {
        accept: (n) => n === 0,
        what: 'outbox emptied',
      });
    } finally {
      await relay.stop();
      await watched.close();
    }
  });
});

describe('outbox with tenant-scoped aggregates', () => {
  it('relays from a tenancy-guarded model, keeps empty objects, and one bad entry does not stall the others', async () => {
    const { topic } = await topicPair();
    const got = await collect(topic);
    const schema = new Schema(
      { _id: String, accountId: String, ...outboxField },
      { versionKey: false, minimize: false },
    );
    schema.plugin(tenantScoped);
    const Guarded = conn.model('Guarded', schema) as OutboxModel;
    const bad = { ...placed(1, 'g-bad'), data: { qty: 'not a number' } } as CloudEvent; // never publishable
    const good = newEvent({
      source: '/cc/test',
      type: 'order.placed',
      subject: 'g-ok',
      accountId: 'acc1',
      data: { qty: 1, extra: {} },
    });
    await Guarded.create({ _id: 'g-bad', accountId: 'acc1', outbox: outboxEntries(topic, [bad]) });
    await Guarded.create({ _id: 'g-ok', accountId: 'acc1', outbox: outboxEntries(topic, [good]) });
    const relay = new OutboxRelay({ models: [Guarded], producer, logger, graceMs: 0 });
    await relay.runOnce();
    await eventually(() => got.length === 1, { what: 'the good event relayed' });
    expect(JSON.parse(got[0]?.value ?? '{}')).toMatchObject({ id: good.id, data: { qty: 1, extra: {} } });
    const stuck = await Guarded.findOne({ accountId: 'acc1', _id: 'g-bad' }).lean<{ outbox: unknown[] }>();
    expect(stuck?.outbox).toHaveLength(1); // kept for inspection, not silently dropped
  });
});

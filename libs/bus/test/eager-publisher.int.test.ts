import type { Consumer, Kafka } from 'kafkajs';
import mongoose, { type Connection, Schema } from 'mongoose';
import { createLogger } from '../../kit/src/logger';
import { eventually, freshName, testInfra } from '../../testing/src';
import {
  createKafka,
  EagerPublisher,
  EventProducer,
  EventSchemas,
  ensureTopics,
  newEvent,
  type OutboxModel,
  OutboxRelay,
  outboxEntries,
  outboxField,
  withEvents,
} from '../src';

const logger = createLogger('eager-test', 'silent');
const schemas = new EventSchemas({
  'order.placed': { type: 'object', required: ['qty'], properties: { qty: { type: 'integer', minimum: 1 } } },
});
const placed = (qty: number, subject: string) =>
  newEvent({ source: '/cc/test', type: 'order.placed', subject, accountId: 'acc1', data: { qty } });

let kafka: Kafka;
let producer: EventProducer;
let conn: Connection;
let Order: OutboxModel;
const consumers: Consumer[] = [];

beforeAll(async () => {
  const infra = await testInfra();
  kafka = createKafka({ brokers: infra.kafkaBrokers, clientId: 'eager-test', logger });
  producer = new EventProducer(kafka, schemas, logger);
  await producer.connect();
  conn = await mongoose.createConnection(infra.mongoUrl, { dbName: freshName('eager') }).asPromise();
  Order = conn.model(
    'Order',
    new Schema({ _id: String, accountId: String, qty: Number, ...outboxField }, { versionKey: false }),
  );
});
afterAll(async () => {
  await Promise.all(consumers.map((c) => c.disconnect()));
  await producer.disconnect();
  await conn.dropDatabase().catch(() => undefined);
  await conn.close();
});

/** A fresh topic and the ids of every event that arrives on it. */
async function topicWithReader(): Promise<{ topic: string; got: string[] }> {
  const topic = freshName('t');
  await ensureTopics(kafka, [{ topic, numPartitions: 2 }]);
  const got: string[] = [];
  const c = kafka.consumer({ groupId: freshName('reader') });
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  await c.run({ eachMessage: async ({ message }) => void got.push(JSON.parse(String(message.value)).id) });
  consumers.push(c);
  return { topic, got };
}

const pending = async (id: string) => ((await Order.findById(id).lean<{ outbox: unknown[] }>())?.outbox ?? []).length;

describe('EagerPublisher on a real broker and store', () => {
  it('publishes right after the write and clears the outbox entry (read from the store, or as the write staged it)', async () => {
    const { topic, got } = await topicWithReader();
    const relay = new OutboxRelay({ models: [Order], producer, logger, sweepMs: 60_000 });
    const publisher = new EagerPublisher({ relay, logger });
    const a = placed(1, 'e-1');
    await Order.create({ _id: 'e-1', accountId: 'acc1', qty: 1, outbox: outboxEntries(topic, [a]) });
    expect(await pending('e-1')).toBe(1);
    await publisher.soon(Order, 'e-1');
    expect(await pending('e-1')).toBe(0);

    const b = placed(2, 'e-1');
    const c = placed(3, 'e-1');
    const staged = { entries: outboxEntries(topic, [b, c]), seq: 3 };
    await Order.updateOne({ _id: 'e-1' }, withEvents({ $set: { qty: 3 } }, topic, [b, c]));
    await publisher.soon(Order, 'e-1', { staged });
    expect(await pending('e-1')).toBe(0);
    await eventually(() => got.length === 3, { what: 'three events' });
    expect(got).toEqual([a.id, b.id, c.id]); // one document's events in write order
    expect(await relay.runOnce(0)).toBe(0); // nothing left for the relay
    await relay.stop();
  });

  it('publishes several new documents in one go (soonMany) and clears every outbox', async () => {
    const { topic, got } = await topicWithReader();
    const relay = new OutboxRelay({ models: [Order], producer, logger, sweepMs: 60_000 });
    const publisher = new EagerPublisher({ relay, logger });
    const ids = ['m-1', 'm-2', 'm-3'];
    const items = ids.map((id, i) => {
      const entries = outboxEntries(topic, [placed(i + 1, id)]);
      return { id, entries, staged: { entries, seq: 1 } };
    });
    await Order.insertMany(
      items.map(({ id, entries }) => ({ _id: id, accountId: 'acc1', qty: 1, outbox: entries, outboxSeq: 1 })),
    );
    await publisher.soonMany(Order, items);
    for (const id of ids) expect(await pending(id)).toBe(0);
    await eventually(() => got.length === 3, { what: 'three events' });
    await relay.stop();
  });

  it('soonMany of documents that changed meanwhile: their later events go out too, in order, and every outbox is cleared', async () => {
    const { topic, got } = await topicWithReader();
    const relay = new OutboxRelay({ models: [Order], producer, logger, sweepMs: 60_000 });
    const publisher = new EagerPublisher({ relay, logger });
    const ids = ['c-1', 'c-2', 'c-3'];
    const first = ids.map((id, i) => placed(i + 1, id));
    const items = ids.map((id, i) => {
      const entries = outboxEntries(topic, [first[i] as ReturnType<typeof placed>]);
      return { id, entries, staged: { entries, seq: 1 } };
    });
    await Order.insertMany(
      items.map(({ id, entries }) => ({ _id: id, accountId: 'acc1', qty: 1, outbox: entries, outboxSeq: 1 })),
    );
    // Two of them are written again before the publish clears them (as routing offers an interaction while its
    // creation is being published): their clear at the staged sequence misses.
    const later = [placed(7, 'c-2'), placed(8, 'c-3')];
    await Order.updateOne(
      { _id: 'c-2' },
      withEvents({ $set: { qty: 7 } }, topic, [later[0] as ReturnType<typeof placed>]),
    );
    await Order.updateOne(
      { _id: 'c-3' },
      withEvents({ $set: { qty: 8 } }, topic, [later[1] as ReturnType<typeof placed>]),
    );
    // c-2 twice, as when two writes' publications of one document go in one group: it is flushed once.
    await publisher.soonMany(Order, [...items, items[1] as (typeof items)[number]]);
    for (const id of ids) expect(await pending(id)).toBe(0);
    await eventually(() => new Set(got).size === 5, { what: 'five distinct events' });
    // At least once: an event staged before the missed clear may go out twice; each document's keep their order.
    expect(new Set(got)).toEqual(new Set([...first, ...later].map((e) => e.id)));
    for (const [i, e] of later.entries())
      expect(got.indexOf(e.id)).toBeGreaterThan(got.indexOf((first[i + 1] as typeof e).id));
    expect(await relay.runOnce(0)).toBe(0);
    await relay.stop();
  });

  it('a publication whose clear missed leaves the document to a later publication queued for it, and flushes the others', async () => {
    const { topic, got } = await topicWithReader();
    const relay = new OutboxRelay({ models: [Order], producer, logger, sweepMs: 60_000 });
    const publisher = new EagerPublisher({ relay, logger });
    type Ev = ReturnType<typeof placed>;
    // q-1 and q-2 go out together (soonMany), q-3 and q-4 one by one (soon); each is written again before its
    // publication clears it.
    const ids = ['q-1', 'q-2', 'q-3', 'q-4'];
    const first = ids.map((id, i) => placed(i + 1, id));
    const second = ids.map((id, i) => placed(i + 11, id));
    const staged = (i: number) => ({ entries: outboxEntries(topic, [first[i] as Ev]), seq: 1 });
    await Order.insertMany(
      ids.map((id, i) => ({ _id: id, accountId: 'acc1', qty: 1, outbox: staged(i).entries, outboxSeq: 1 })),
    );
    for (const [i, id] of ids.entries())
      await Order.updateOne({ _id: id }, withEvents({ $set: { qty: 2 } }, topic, [second[i] as Ev]));
    // q-1 and q-3's second writes have their publication queued (as routing's grouped publications hold theirs);
    // q-2 and q-4's have none.
    const queued = publisher.hold(Order, ['q-1', 'q-3'], [2, 2]);

    await publisher.soonMany(
      Order,
      [0, 1].map((i) => ({ id: ids[i] as string, staged: staged(i) })),
    );
    await publisher.soon(Order, 'q-3', { staged: staged(2) });
    await publisher.soon(Order, 'q-4', { staged: staged(3) });
    // Left to the queued publication (no flush: it would send them now, and that publication again)...
    expect(await pending('q-1')).toBe(2);
    expect(await pending('q-3')).toBe(2);
    // ... while nobody else would have sent these.
    expect(await pending('q-2')).toBe(0);
    expect(await pending('q-4')).toBe(0);

    // The queued publications send everything their writes left, and clear.
    const both = (i: number) => ({ entries: outboxEntries(topic, [first[i] as Ev, second[i] as Ev]), seq: 2 });
    await Promise.all([
      publisher.soonMany(Order, [{ id: 'q-1', staged: both(0) }]),
      publisher.soon(Order, 'q-3', { staged: both(2) }),
    ]);
    queued();
    for (const id of ids) expect(await pending(id)).toBe(0);
    // Each first event twice (its own publication, then the later one or q-2's flush) but q-4's (its clear missed
    // and it sent only what it had not sent), each second event once: 11 messages.
    await eventually(() => got.length === 11, { what: 'eleven messages' });
    for (const [i, e] of second.entries()) {
      expect(got.indexOf(e.id)).toBeGreaterThan(got.indexOf((first[i] as Ev).id));
      expect(got.filter((id) => id === e.id)).toHaveLength(1); // sent once: nobody flushed it before
    }
    expect(await relay.runOnce(0)).toBe(0);
    await relay.stop();
  });

  it("a hold's registration ends with its publication, not with the hold; drain waits for held publications", async () => {
    const { topic, got } = await topicWithReader();
    const relay = new OutboxRelay({ models: [Order], producer, logger, sweepMs: 60_000 });
    const publisher = new EagerPublisher({ relay, logger });
    const [e1, e2, e3] = [placed(1, 'h-1'), placed(2, 'h-1'), placed(3, 'h-1')] as const;
    await Order.create({ _id: 'h-1', accountId: 'acc1', qty: 1, outbox: outboxEntries(topic, [e1]), outboxSeq: 1 });
    await Order.updateOne({ _id: 'h-1' }, withEvents({ $set: { qty: 2 } }, topic, [e2]));
    // The second write's publication is queued under a hold, then handed over and done; its holder holds on.
    const held = publisher.hold(Order, ['h-1'], [2]);
    await publisher.soon(Order, 'h-1', { staged: { entries: outboxEntries(topic, [e1, e2]), seq: 2 } });
    expect(await pending('h-1')).toBe(0);
    // A third write with no publication of its own, then the first write's publication, answered late: its clear
    // misses, and nothing queued will send e3, so it does.
    await Order.updateOne({ _id: 'h-1' }, withEvents({ $set: { qty: 3 } }, topic, [e3]));
    await publisher.soon(Order, 'h-1', { staged: { entries: outboxEntries(topic, [e1]), seq: 1 } });
    expect(await pending('h-1')).toBe(0);
    await eventually(() => got.includes(e3.id), { what: 'e3' });

    let drained = false;
    const drain = publisher.drain().then(() => {
      drained = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(drained).toBe(false); // the hold is still out: its holder may still hand a publication over
    held();
    await drain;
    expect(drained).toBe(true);
    await relay.stop();
  });

  it('a failed produce leaves the entry in the document, and the relay publishes and clears it', async () => {
    const { topic, got } = await topicWithReader();
    // A real producer that is not connected: every send fails, as while the broker is unreachable.
    const down = new EventProducer(kafka, schemas, logger);
    const failingRelay = new OutboxRelay({ models: [Order], producer: down, logger, graceMs: 60_000 });
    const publisher = new EagerPublisher({ relay: failingRelay, logger });
    const e = placed(4, 'f-1');
    await Order.create({ _id: 'f-1', accountId: 'acc1', qty: 4, outbox: outboxEntries(topic, [e]) });
    await expect(publisher.soon(Order, 'f-1')).resolves.toBeUndefined(); // never throws
    expect(await pending('f-1')).toBe(1);
    expect(got).toEqual([]);
    await failingRelay.stop();

    // The relay (here: a healthy instance's sweep) sends what the eager publish could not.
    const relay = new OutboxRelay({ models: [Order], producer, logger, graceMs: 0, sweepMs: 60_000 });
    expect(await relay.runOnce(0)).toBe(1);
    expect(await pending('f-1')).toBe(0);
    await eventually(() => got.length === 1, { what: 'the relayed event' });
    expect(got).toEqual([e.id]);
    await relay.stop();
  });

  it('a failed produce hands the document to the relay timer, which publishes it once the broker is back', async () => {
    const { topic, got } = await topicWithReader();
    const e = placed(5, 'r-1');
    await Order.create({ _id: 'r-1', accountId: 'acc1', qty: 5, outbox: outboxEntries(topic, [e]) });
    // The broker is "down" for this instance's producer (not connected yet); the retry timer must pick the document
    // up once it is back, without a sweep (sweepMs is a minute).
    const down = new EventProducer(kafka, schemas, logger);
    const relay = new OutboxRelay({ models: [Order], producer: down, logger, graceMs: 200, sweepMs: 60_000 });
    const publisher = new EagerPublisher({ relay, logger });
    await publisher.soon(Order, 'r-1');
    expect(await pending('r-1')).toBe(1);
    await down.connect();
    await eventually(async () => (await pending('r-1')) === 0, { what: 'the outbox cleared by the retry timer' });
    await eventually(() => got.length === 1, { what: 'the retried event' });
    expect(got).toEqual([e.id]);
    await relay.stop();
    await down.disconnect();
  });
});

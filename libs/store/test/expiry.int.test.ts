import mongoose, { type Connection, type mongo } from 'mongoose';
import { createLogger } from '../../kit/src/logger';
import { freshName, testInfra } from '../../testing/src';
import { ExpiryJob, expireBefore } from '../src';

let conn: Connection;
const logger = createLogger('expiry-test', 'silent');

beforeAll(async () => {
  conn = await mongoose.createConnection((await testInfra()).mongoUrl, { dbName: freshName('expiry') }).asPromise();
});
afterAll(async () => {
  await conn.dropDatabase().catch(() => undefined);
  await conn.close();
});

const coll = (name: string) => conn.db?.collection(name) as mongo.Collection;

it('deletes only what is older than the cutoff, in bounded batches, by a Date or an epoch-ms field', async () => {
  const events = coll('processed_events');
  const now = Date.now();
  await events.createIndex({ at: 1 });
  await events.insertMany([
    ...Array.from({ length: 10 }, (_, i) => ({ _id: `old-${i}` as never, at: new Date(now - 3_600_000 - i) })),
    ...Array.from({ length: 3 }, (_, i) => ({ _id: `new-${i}` as never, at: new Date(now - i) })),
  ]);
  const cutoff = new Date(now - 60_000);
  // Bounded: two batches of three, the rest waits for the next run.
  expect(await expireBefore(events, 'at', cutoff, { batch: 3, maxBatches: 2 })).toBe(6);
  expect(await events.countDocuments({})).toBe(7);
  expect(await expireBefore(events, 'at', cutoff, { batch: 3, maxBatches: 2 })).toBe(4);
  expect((await events.find({}).toArray()).map((d) => d._id).sort()).toEqual(['new-0', 'new-1', 'new-2']);
  expect(await expireBefore(events, 'at', cutoff)).toBe(0);

  const requests = coll('invoke_requests');
  await requests.insertMany([
    { _id: 'a:expired' as never, accountId: 'a', expiresAt: now - 1 },
    { _id: 'b:expired' as never, accountId: 'b', expiresAt: now - 1000 },
    { _id: 'a:kept' as never, accountId: 'a', expiresAt: now + 60_000 },
  ]);
  const job = new ExpiryJob([], { intervalMs: 3_600_000, logger });
  job.add({ name: 'invoke_requests', collection: requests, field: 'expiresAt', cutoff: () => now });
  job.add({ name: 'processed_events', collection: events, field: 'at', cutoff: () => new Date(now + 1) });
  expect(await job.runOnce()).toEqual({ invoke_requests: 2, processed_events: 3 });
  expect((await requests.find({}).toArray()).map((d) => d._id)).toEqual(['a:kept']);
});

import type { Connection } from 'mongoose';
import { createLogger } from '../../kit/src/logger';
import { freshName, testInfra } from '../../testing/src';
import { connectStore } from '../src';

// Two connections with pools of their own, as two instances of a service sharing one database.
let conn: Connection;
let other: Connection;
beforeAll(async () => {
  const opts = { url: (await testInfra()).mongoUrl, dbName: freshName('atomic'), logger: createLogger('t', 'silent') };
  conn = await connectStore(opts);
  other = await connectStore(opts);
});
afterAll(async () => {
  await conn.dropDatabase().catch(() => undefined);
  await Promise.all([conn.close(), other.close()]);
});

it('applies every one of many concurrent updates to one document (no lost updates)', async () => {
  const col = conn.collection<{ _id: string; n: number; seen: number[] }>('counters');
  await col.insertOne({ _id: 'c', n: 0, seen: [] });
  await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? other.collection<{ _id: string; n: number; seen: number[] }>('counters') : col).updateOne(
        { _id: 'c' },
        { $inc: { n: 1 }, $push: { seen: i } },
      ),
    ),
  );
  const doc = await col.findOne({ _id: 'c' });
  expect(doc?.n).toBe(40);
  expect(doc?.seen).toHaveLength(40);
});

it('lets exactly one of several concurrent conditional updates win (optimistic concurrency)', async () => {
  const col = conn.collection<{ _id: string; version: number; owner?: number }>('leases');
  await col.insertOne({ _id: 'l', version: 1 });
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      (i % 2 ? other.collection<{ _id: string; version: number; owner?: number }>('leases') : col).updateOne(
        { _id: 'l', version: 1 },
        { $set: { version: 2, owner: i } },
      ),
    ),
  );
  expect(results.filter((r) => r.modifiedCount === 1)).toHaveLength(1);
});

it('completes a bulk write of 150 updates in one command (each statement releases its store connection)', async () => {
  const col = conn.collection<{ _id: string; n: number }>('bulk');
  await col.insertMany(Array.from({ length: 150 }, (_, i) => ({ _id: `d${i}`, n: 0 })));
  const res = await col.bulkWrite(
    Array.from({ length: 150 }, (_, i) => ({ updateOne: { filter: { _id: `d${i}` }, update: { $inc: { n: 1 } } } })),
    { ordered: false },
  );
  expect(res.modifiedCount).toBe(150);
  // The store still answers writes afterwards (a stalled command used to block every later one).
  await other.collection<{ _id: string; n: number }>('bulk').updateOne({ _id: 'd0' }, { $inc: { n: 1 } });
  expect((await col.findOne({ _id: 'd0' }))?.n).toBe(2);
}, 20_000);

it('never interleaves a write by another filter with concurrent writes by _id (no lost updates across both)', async () => {
  // Writes naming their document by `_id` run side by side (one lock per document); a write whose filter may
  // match any document (here `group`) must wait for them and hold them off, or one of the two loses an $inc.
  type Counter = { _id: string; group: string; n: number };
  const col = conn.collection<Counter>('mixed');
  await col.insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: `m${i}`, group: 'g', n: 0 })));
  await Promise.all([
    ...Array.from({ length: 100 }, (_, i) =>
      (i % 2 ? other.collection<Counter>('mixed') : col).updateOne({ _id: `m${i % 10}` }, { $inc: { n: 1 } }),
    ),
    ...Array.from({ length: 5 }, (_, i) =>
      (i % 2 ? col : other.collection<Counter>('mixed')).updateMany({ group: 'g' }, { $inc: { n: 1 } }),
    ),
  ]);
  const docs = await col.find({ group: 'g' }).toArray();
  expect(docs.map((d) => d.n)).toEqual(Array.from({ length: 10 }, () => 15));
});

import type { Connection } from 'mongoose';
import { createLogger } from '../../kit/src/logger';
import { findScans, freshName, type RecordedQuery, testInfra } from '../../testing/src';
import { connectStore } from '../src';

// The query shapes the suite's hot paths use must be served from an index by the store itself
// (on the local stack: FerretDB on PostgreSQL with patches/ferretdb-1.24-postgresql-gin-pushdown.patch).
let conn: Connection;
beforeAll(async () => {
  conn = await connectStore({
    url: (await testInfra()).mongoUrl,
    dbName: freshName('pushdown'),
    logger: createLogger('t', 'silent'),
  });
  const col = conn.collection('items');
  await col.createIndex({ k: 1 });
  await col.createIndex({ accountId: 1, state: 1 });
  await col.createIndex({ accountId: 1, name: 1 }, { unique: true });
  await col.insertMany(
    Array.from({ length: 500 }, (_, i) => ({
      _id: `id${i}` as never,
      k: i % 50,
      accountId: `a${i % 10}`,
      state: i % 7 ? 'done' : 'open',
      name: `n${i}`,
      tags: [`t${i}`, `t${i + 1}`],
    })),
  );
  await col.createIndex({ tags: 1 });
});
afterAll(async () => {
  await conn.dropDatabase().catch(() => undefined);
  await conn.close();
});

function q(filter: Record<string, unknown>): RecordedQuery {
  return {
    db: conn.name,
    collection: 'items',
    method: 'find',
    filter,
    shape: JSON.stringify(filter),
    site: 'test',
    conn,
  };
}

it.each([
  ['equality on a non-unique indexed field', { k: 7 }],
  ['_id equality', { _id: 'id42' }],
  ['_id with the tenant (every tenant-scoped read and write)', { _id: 'id42', accountId: 'a2' }],
  ['equality on a compound index', { accountId: 'a3', state: 'open' }],
  ['equality on a unique compound index', { accountId: 'a3', name: 'n13' }],
  ['$eq on an indexed field', { k: { $eq: 7 } }],
  ['equality on an indexed array field', { tags: 't9' }],
])('%s is served from an index', async (_what, filter) => {
  const [verdict] = await findScans([q(filter)]);
  expect(verdict?.why).toBe('');
});

it.each([
  ['$in', { k: { $in: [1, 2] } }],
  ['a field without an index', { name2: 'x' }],
])('%s is reported as a scan (the guard can fail)', async (_what, filter) => {
  const [verdict] = await findScans([q(filter)]);
  expect(verdict?.scan).toBe(true);
});

it('keeps MongoDB equality semantics on the index: a value matches an array holding it, numbers match across types', async () => {
  const col = conn.collection('items');
  expect((await col.find({ tags: 't9' }).toArray()).map((d) => d._id).sort()).toEqual(['id8', 'id9']);
  expect(await col.countDocuments({ k: 7 })).toBe(10);
  expect(await col.countDocuments({ k: 7.0, accountId: 'a7' })).toBe(10);
  expect(await col.findOne({ _id: 'id42' as never, accountId: 'a1' })).toBeNull();
  expect((await col.findOne({ accountId: 'a3', name: "n13'; --" }))?._id).toBeUndefined();
  await col.insertOne({ _id: 'quote' as never, "it's": 1, k: 999 });
  await col.createIndex({ "it's": 1 });
  expect((await col.findOne({ "it's": 1 }))?._id).toBe('quote');
});

// The heuristic above accepts a Seq Scan when an index could serve the fields; this asks PostgreSQL's own
// plan, on lookups selective enough that it must choose an index when one exists (it does not when the
// store runs without the GIN/`_id` patch: a binary built with the patches skipped answered Seq Scan here).
it.each([
  ['_id equality (btree, `=`)', { _id: 'id42' }],
  ['a selective unique field (GIN companion)', { accountId: 'a3', name: 'n13' }],
])('PostgreSQL plans an index for %s (FerretDB on PostgreSQL only)', async (_what, filter) => {
  const res = (await conn.db?.command({ explain: { find: 'items', filter }, verbosity: 'queryPlanner' })) as {
    filterPushdown?: boolean;
    queryPlanner?: unknown;
  };
  if (!('filterPushdown' in res)) return; // MongoDB: covered by the COLLSCAN verdicts above
  expect(JSON.stringify(res.queryPlanner)).toMatch(/"Node Type":"(Index Scan|Bitmap Heap Scan|Index Only Scan)"/);
});

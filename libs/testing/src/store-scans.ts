import mongoose, { type Connection } from 'mongoose';

/** One query the code sent to the store, as mongoose's debug hook saw it. */
export interface RecordedQuery {
  db: string;
  collection: string;
  method: string;
  filter: Record<string, unknown>;
  /** Collection, method and filter with every value replaced by its kind: one line per query shape. */
  shape: string;
  /** The first source frame outside node_modules and the tests: where the query was written. */
  site: string;
  conn: Connection;
}

/** What the store does with a query: served from an index, or a scan (with the plan that says so). */
export interface QueryVerdict {
  query: RecordedQuery;
  scan: boolean;
  why: string;
}

const filterMethods: Record<string, (args: unknown[]) => unknown[]> = {
  find: (a) => [a[0]],
  findOne: (a) => [a[0]],
  findOneAndUpdate: (a) => [a[0]],
  findOneAndDelete: (a) => [a[0]],
  findOneAndReplace: (a) => [a[0]],
  updateOne: (a) => [a[0]],
  updateMany: (a) => [a[0]],
  replaceOne: (a) => [a[0]],
  deleteOne: (a) => [a[0]],
  deleteMany: (a) => [a[0]],
  countDocuments: (a) => [a[0]],
  distinct: (a) => [a[1]],
  aggregate: (a) => {
    const first = (a[0] as Record<string, unknown>[] | undefined)?.[0];
    return first && '$match' in first ? [first.$match] : [{}];
  },
  bulkWrite: (a) =>
    ((a[0] as Record<string, { filter?: unknown }>[] | undefined) ?? [])
      .map((op) => Object.values(op)[0]?.filter)
      .filter((f) => f !== undefined),
};

function kind(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || v instanceof Date || mongoose.isObjectIdOrHexString(v)) return '?';
  if (Array.isArray(v)) return ['?'];
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = k.startsWith('$') || typeof x === 'object' ? kind(x) : '?';
  return out;
}

function callSite(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  const own = frames.find(
    (f) =>
      /\/(services|libs)\//.test(f) &&
      !f.includes('node_modules') &&
      !f.includes('/libs/testing/') &&
      // The scoped access path is a pass-through: the query was written where it was called.
      !f.includes('/libs/store/src/tenancy.') &&
      !/\/test\//.test(f),
  );
  return (own ?? '')
    .trim()
    .replace(/^at /, '')
    .replace(/\(.*\/((services|libs)\/[^:]+):(\d+):\d+\)$/, '($1:$3)');
}

/**
 * Records every filter the code (not the tests) sends to the store through mongoose, so that
 * {@link findScans} can ask the store how it serves each one. Stop it before the connections close.
 */
export function recordStoreQueries(): { queries: RecordedQuery[]; stop: () => void } {
  const queries: RecordedQuery[] = [];
  const seen = new Set<string>();
  const previous = mongoose.get('debug');
  mongoose.set('debug', function (this: { conn: Connection }, collection: string, method: string, ...args: unknown[]) {
    const pick = filterMethods[method];
    if (!pick) return;
    const site = callSite();
    if (!site) return; // a test's own query
    for (const filter of pick(args)) {
      const f = (filter ?? {}) as Record<string, unknown>;
      const shape = `${collection}.${method} ${JSON.stringify(kind(f))}`;
      if (seen.has(`${this.conn.name} ${shape}`)) continue;
      seen.add(`${this.conn.name} ${shape}`);
      queries.push({ db: this.conn.name, collection, method, filter: f, shape, site, conn: this.conn });
    }
  });
  return { queries, stop: () => mongoose.set('debug', previous) };
}

/** Top-level equality fields FerretDB pushes down (scalar value or `$eq` of one; no dotted paths). */
function pushedFields(filter: Record<string, unknown>): string[] {
  const scalar = (v: unknown) =>
    v === null || typeof v !== 'object' || v instanceof Date || mongoose.isObjectIdOrHexString(v);
  return Object.entries(filter)
    .filter(
      ([k, v]) =>
        !k.startsWith('$') &&
        !k.includes('.') &&
        (scalar(v) || (typeof v === 'object' && v !== null && '$eq' in v && scalar((v as { $eq: unknown }).$eq))),
    )
    .map(([k]) => k);
}

/**
 * On a small table PostgreSQL rightly prefers a Seq Scan even when an index could serve the query; the
 * question is whether one could. With the local store's GIN indexes every field of every index can
 * serve an equality on its own (unique indexes have a GIN companion), and `_id` has its btree.
 */
async function indexServes(query: RecordedQuery): Promise<boolean> {
  const fields = pushedFields(query.filter);
  if (fields.includes('_id')) return true;
  const indexes = await query.conn.db?.collection(query.collection).listIndexes().toArray();
  const indexed = new Set((indexes ?? []).flatMap((i) => Object.keys(i.key as object)));
  return fields.some((f) => indexed.has(f));
}

/**
 * Asks the store to explain each query's filter and returns the verdicts. FerretDB (PostgreSQL
 * handler): a scan when the filter is not pushed down or PostgreSQL plans a Seq Scan. MongoDB: a scan
 * when the winning plan has a COLLSCAN.
 */
export async function findScans(queries: RecordedQuery[]): Promise<QueryVerdict[]> {
  const verdicts: QueryVerdict[] = [];
  for (const query of queries) {
    const db = query.conn.db;
    if (!db || query.conn.readyState !== 1) continue;
    const res = (await db.command({
      explain: { find: query.collection, filter: query.filter },
      verbosity: 'queryPlanner',
    })) as Record<string, unknown>;
    const plan = JSON.stringify(res.queryPlanner ?? {});
    let why = '';
    if (plan === '{}') {
      // FerretDB: the collection does not exist (yet); there is nothing to scan.
    } else if ('filterPushdown' in res) {
      if (res.filterPushdown !== true) why = 'filter not pushed down to the store';
      else if (plan.includes('"Seq Scan"') && !(await indexServes(query))) {
        why = 'PostgreSQL plans a Seq Scan (no index for the pushed-down fields)';
      }
    } else if (plan.includes('COLLSCAN')) {
      why = 'MongoDB plans a COLLSCAN';
    }
    verdicts.push({ query, scan: why !== '', why });
  }
  return verdicts;
}

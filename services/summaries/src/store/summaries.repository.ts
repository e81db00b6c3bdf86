import { promisify } from 'node:util';
import { deflateRaw, inflateRawSync } from 'node:zlib';
import { crossAccount } from '@cc/store';
import { mongo } from 'mongoose';
import type { AgentChange, AgentState, Bucket, SummaryBook } from '../domain/book';
import type { Counters, Interval } from '../domain/buckets';
import type { AccountFlag } from '../domain/flags';
import type { AccountDoc, AgentVersion, BucketVersion, LogDoc, MetaDoc, SummariesModels } from './summaries.models';

/** A bucket version of a format-1 entry after the JSON round trip (dates as ISO strings). */
type StoredBucket = Omit<BucketVersion, 'period' | 'revisedAt'> & { period: string; revisedAt: string };

/**
 * A bucket in a format-2 entry: account, agent, period and revisedAt (epoch ms), revision, the intervals' shares as
 * a flat list (key, counters, key, counters, ...).
 */
type PackedBucket = [string, string, number, number, number, (string | Counters)[]];
/**
 * An agent state in a format-2 entry: account, agent, open intervals with their reach, closed keys with their start
 * as a flat list (key, start, ...), and whether those are all of them (1: compaction, replaces) or only those added
 * since the last entry (0: merged).
 */
type PackedAgent = [string, string, [Interval, number | null][], (string | number)[], 0 | 1];
/**
 * Format 2 (`f: 2`): arrays and epoch numbers (flat lists, not objects: building a large object per bucket or agent
 * cost more than the JSON text itself), agents' closed keys as deltas. Format 1 entries are still read.
 */
interface PackedEntry {
  f: 2;
  b: PackedBucket[];
  a: PackedAgent[];
}

/** A key/value object as a flat list (format-1 entries read into format 2). */
function flat<V>(o: Record<string, V>): (string | V)[] {
  const out: (string | V)[] = [];
  for (const k in o) out.push(k, o[k] as V);
  return out;
}

const deflate = promisify(deflateRaw);

const generationOf = /^summary_log_g(\d+)$/;
const chunk = 2000;

/**
 * Keeps the in-memory summaries durable with one insert per consumed batch: the new versions of every
 * bucket and agent state the batch changed go into one log document (`summary_log_g<N>`), and at load
 * the log is replayed in order, the latest version of each winning. One document per batch, because the
 * portable store does a few inserts fast but applies a `bulkWrite` of replaces one by one and inserts
 * ~1,500 documents/s under load (measured: 400 replaces 4.1 s, 400 `$set` updates 10.8 s, an
 * `insertMany` of 400 documents 0.28 s). Versions pile up, so the live state is rewritten now and then
 * into a fresh generation, the generation pointer switched in one write, and the old generation
 * dropped; a crash half-way leaves the pointer on the complete old generation.
 */
export class SummariesRepository {
  private generation = 0;
  private written = 0;
  private lastV = 0;
  private savedWatermark: number | null = null;

  constructor(
    private readonly m: SummariesModels,
    private readonly db: mongo.Db,
  ) {}

  private log(g = this.generation) {
    return this.db.collection<LogDoc>(`summary_log_g${g}`);
  }

  private stamp(): number {
    this.lastV = Math.max(Date.now() * 1000, this.lastV + 1);
    return this.lastV;
  }

  /** Loads the live generation (buckets of periods from `since` on), flags and watermark into memory. */
  async load(book: SummaryBook, since: Date): Promise<{ flags: AccountFlag[]; watermark: number | null }> {
    const meta = crossAccount(this.m.Meta, 'summaries bookkeeping: generation and watermark');
    this.generation = (await meta.findOne<MetaDoc>({ _id: 'generation' as never }))?.generation ?? 0;
    // Leftovers of a compaction that did not finish.
    let live = false;
    for (const c of await this.db.listCollections({}, { nameOnly: true }).toArray()) {
      const g = generationOf.exec(c.name)?.[1];
      if (g !== undefined && Number(g) !== this.generation) await this.db.dropCollection(c.name).catch(() => undefined);
      else if (g !== undefined) live = true;
    }
    // Created now, not by the first batch's insert: creating it cost that write seconds on a busy store.
    if (!live)
      await this.db.createCollection(`summary_log_g${this.generation}`).catch((err: { codeName?: string }) => {
        if (err.codeName !== 'NamespaceExists') throw err;
      });
    const [logDocs, accounts, watermark] = await Promise.all([
      this.log().find({}).toArray(),
      crossAccount(this.m.Account, 'summaries load every account flag').find<AccountDoc>({}).toArray(),
      meta.findOne<MetaDoc>({ _id: 'watermark' as never }),
    ]);
    logDocs.sort((a, b) => a.v - b.v);
    const buckets = new Map<string, PackedBucket>();
    const agents = new Map<
      string,
      { accountId: string; agentId: string; open: PackedAgent[2]; closed: Map<string, number> }
    >();
    this.written = 0;
    const keep = (b: PackedBucket) => buckets.set(`${b[0]}|${b[1]}|${b[2]}`, b);
    const merge = (accountId: string, agentId: string, open: PackedAgent[2], closed: PackedAgent[3], all: boolean) => {
      const key = `${accountId}|${agentId}`;
      const known = agents.get(key);
      const keys = all || !known ? new Map<string, number>() : known.closed;
      for (let i = 0; i < closed.length; i += 2) keys.set(closed[i] as string, closed[i + 1] as number);
      agents.set(key, { accountId, agentId, open, closed: keys });
    };
    for (const d of logDocs) {
      const entry = JSON.parse(d.z ? inflateRawSync(d.z.buffer).toString('utf8') : (d.data as string)) as
        | PackedEntry
        | { f?: undefined; buckets: StoredBucket[]; agents: AgentVersion[] };
      if (entry.f === 2) {
        for (const b of entry.b) keep(b);
        for (const a of entry.a) merge(a[0], a[1], a[2], a[3], a[4] === 1);
      } else {
        for (const b of entry.buckets)
          keep([b.accountId, b.agentId, Date.parse(b.period), Date.parse(b.revisedAt), b.revision, flat(b.parts)]);
        for (const a of entry.agents)
          merge(
            a.accountId,
            a.agentId,
            a.open.map((o) => [o.iv as unknown as Interval, o.reach]),
            flat(a.closed ?? {}),
            true,
          );
      }
      this.written += d.buckets;
      if (d.v > this.lastV) this.lastV = d.v;
    }
    for (const [accountId, agentId, period, revisedAt, revision, parts] of buckets.values()) {
      if (period < since.getTime()) continue;
      const byKey: Record<string, Counters> = {};
      for (let i = 0; i < parts.length; i += 2) byKey[parts[i] as string] = parts[i + 1] as Counters;
      book.loadBucket({ accountId, agentId, period, revisedAt, revision, parts: byKey });
    }
    for (const a of agents.values()) {
      book.loadAgent({
        accountId: a.accountId,
        agentId: a.agentId,
        open: a.open.map(([iv, reach]) => ({ iv, reach })),
        closed: [...a.closed].filter(([, start]) => start >= since.getTime()),
      });
    }
    return {
      flags: accounts.map((a) => ({ accountId: a._id, enabled: a.agentSummaries, at: a.flagsAt.getTime() })),
      watermark: watermark?.at ? watermark.at.getTime() : null,
    };
  }

  private packBucket(b: Bucket): PackedBucket {
    const parts: PackedBucket[5] = [];
    b.parts.forEach((c, k) => {
      parts.push(k, c);
    });
    return [b.accountId, b.agentId, b.period, b.revisedAt, b.revision, parts];
  }

  private packAgent(s: AgentState, closed: Iterable<[string, number]>, all: boolean): PackedAgent {
    const open: PackedAgent[2] = [];
    for (const o of s.open.values()) open.push([o.iv, o.reach]);
    const keys: PackedAgent[3] = [];
    for (const [k, start] of closed) keys.push(k, start);
    return [s.accountId, s.agentId, open, keys, all ? 1 : 0];
  }

  // The versions travel as one JSON text, deflated: the store converts a string or binary field at once, while nested
  // documents cost it per field (a batch of 600 buckets as documents took 1-4 s to insert under load), and it takes
  // a deflated entry several times faster than the text (measured: 1.6 MB of JSON 57-200 ms, deflated to 0.36 MB
  // 26-46 ms). The text is built at once (the state it packs keeps changing); deflating runs off the main thread.
  private async entry(b: PackedBucket[], a: PackedAgent[]): Promise<LogDoc> {
    const v = this.stamp();
    const data: PackedEntry = { f: 2, b, a };
    const text = JSON.stringify(data);
    // One trip to the thread pool: with zlib's default 16 KiB output chunks each chunk comes back to the main thread
    // before the next is deflated, and under load every such trip waited behind the consumer's batches (the first
    // 2.7 MB entry of the benchmark took 4.5-6.4 s to deflate that way, 0.5 s in one chunk). Half the text's length
    // holds this JSON deflated several times over; a larger output only takes another trip.
    const z = await deflate(text, { level: 1, chunkSize: Math.max(64 * 1024, text.length >> 1) });
    return { _id: String(v), v, buckets: b.length, z: new mongo.Binary(z) };
  }

  /** Writes a batch's changed buckets and agent states (one log document), flags and the watermark. */
  async save(changes: {
    buckets: Bucket[];
    agents: AgentChange[];
    flags: AccountFlag[];
    watermark: number | null;
  }): Promise<void> {
    const meta = crossAccount(this.m.Meta, 'summaries bookkeeping: generation and watermark');
    // One write after the other: concurrent writes to one database of the SQLite-backed store contend
    // for its lock (a flush once stalled for 87 s that way).
    if (changes.buckets.length + changes.agents.length > 0) {
      const entry = this.entry(
        changes.buckets.map((b) => this.packBucket(b)),
        changes.agents.map((c) => this.packAgent(c.state, c.closedAdded, false)),
      );
      await this.log().insertOne(await entry);
    }
    for (const f of changes.flags) {
      await crossAccount(this.m.Account, 'account flags keyed by account id').replaceOne(
        { _id: f.accountId as never },
        { agentSummaries: f.enabled, flagsAt: new Date(f.at) },
        { upsert: true },
      );
    }
    // The watermark moves once per fetch round at most: an unchanged one is not rewritten (an update costs the
    // store a whole-document rewrite under its global write lock).
    if (changes.watermark !== null && changes.watermark !== this.savedWatermark) {
      await meta.replaceOne({ _id: 'watermark' as never }, { at: new Date(changes.watermark) }, { upsert: true });
      this.savedWatermark = changes.watermark;
    }
    this.written += changes.buckets.length;
  }

  /** Whether superseded versions outnumber the live state enough to rewrite it. */
  needsCompaction(live: number): boolean {
    return this.written > Math.max(50_000, 3 * live);
  }

  /** Rewrites the live state into the next generation, switches to it, drops the old one. */
  async compact(live: { buckets: Bucket[]; agents: AgentState[] }): Promise<void> {
    const next = this.generation + 1;
    await this.log(next)
      .drop()
      .catch(() => undefined);
    const docs: Promise<LogDoc>[] = [];
    for (let i = 0; i < live.buckets.length; i += chunk)
      docs.push(
        this.entry(
          live.buckets.slice(i, i + chunk).map((b) => this.packBucket(b)),
          [],
        ),
      );
    for (let i = 0; i < live.agents.length; i += chunk)
      docs.push(
        this.entry(
          [],
          live.agents.slice(i, i + chunk).map((s) => this.packAgent(s, s.closed, true)),
        ),
      );
    for (const d of docs) await this.log(next).insertOne(await d);
    await crossAccount(this.m.Meta, 'summaries bookkeeping: generation').replaceOne(
      { _id: 'generation' as never },
      { generation: next },
      { upsert: true },
    );
    const old = this.generation;
    this.generation = next;
    this.written = live.buckets.length;
    await this.log(old)
      .drop()
      .catch(() => undefined);
  }
}

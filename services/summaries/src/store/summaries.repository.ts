import { crossAccount } from '@cc/store';
import type { mongo } from 'mongoose';
import type { AgentState, Bucket, SummaryBook } from '../domain/book';
import type { Interval } from '../domain/buckets';
import type { AccountFlag } from '../domain/flags';
import type { AccountDoc, AgentVersion, BucketVersion, LogDoc, MetaDoc, SummariesModels } from './summaries.models';

const bucketId = (b: Pick<Bucket, 'accountId' | 'agentId' | 'period'>) =>
  `${b.accountId}|${b.agentId}|${new Date(b.period).toISOString()}`;
/** A bucket version after the JSON round trip (dates as ISO strings). */
type StoredBucket = Omit<BucketVersion, 'period' | 'revisedAt'> & { period: string; revisedAt: string };

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
    for (const c of await this.db.listCollections({}, { nameOnly: true }).toArray()) {
      const g = generationOf.exec(c.name)?.[1];
      if (g !== undefined && Number(g) !== this.generation) await this.db.dropCollection(c.name).catch(() => undefined);
    }
    const [logDocs, accounts, watermark] = await Promise.all([
      this.log().find({}).toArray(),
      crossAccount(this.m.Account, 'summaries load every account flag').find<AccountDoc>({}).toArray(),
      meta.findOne<MetaDoc>({ _id: 'watermark' as never }),
    ]);
    logDocs.sort((a, b) => a.v - b.v);
    const buckets = new Map<string, StoredBucket>();
    const agents = new Map<string, AgentVersion>();
    this.written = 0;
    for (const d of logDocs) {
      const entry = JSON.parse(d.data) as { buckets: StoredBucket[]; agents: AgentVersion[] };
      for (const b of entry.buckets) buckets.set(b.bucketId, b);
      for (const a of entry.agents) agents.set(a.agentKey, a);
      this.written += d.buckets;
      if (d.v > this.lastV) this.lastV = d.v;
    }
    for (const b of buckets.values()) {
      const period = Date.parse(b.period);
      if (period < since.getTime()) continue;
      book.loadBucket({ ...b, period, revisedAt: Date.parse(b.revisedAt) });
    }
    for (const a of agents.values()) {
      book.loadAgent({
        accountId: a.accountId,
        agentId: a.agentId,
        open: a.open.map((o) => ({ iv: o.iv as unknown as Interval, reach: o.reach })),
        closed: Object.entries(a.closed ?? {}),
      });
    }
    return {
      flags: accounts.map((a) => ({ accountId: a._id, enabled: a.agentSummaries, at: a.flagsAt.getTime() })),
      watermark: watermark?.at ? watermark.at.getTime() : null,
    };
  }

  private bucketDoc(b: Bucket): BucketVersion {
    return {
      bucketId: bucketId(b),
      accountId: b.accountId,
      agentId: b.agentId,
      period: new Date(b.period),
      parts: Object.fromEntries(b.parts),
      revision: b.revision,
      revisedAt: new Date(b.revisedAt),
    };
  }

  private agentDoc(s: AgentState): AgentVersion {
    return {
      agentKey: `${s.accountId}|${s.agentId}`,
      accountId: s.accountId,
      agentId: s.agentId,
      open: [...s.open.values()].map((o) => ({ iv: o.iv as unknown as Record<string, unknown>, reach: o.reach })),
      // An object, not pairs: the portable store subset has no nested arrays.
      closed: Object.fromEntries(s.closed),
    };
  }

  // The versions travel as one JSON string: the store converts a string field at once, while nested
  // documents cost it per field (a batch of 600 buckets as documents took 1-4 s to insert under load).
  private entry(buckets: BucketVersion[], agents: AgentVersion[]): LogDoc {
    const v = this.stamp();
    return { _id: String(v), v, buckets: buckets.length, data: JSON.stringify({ buckets, agents }) };
  }

  /** Writes a batch's changed buckets and agent states (one log document), flags and the watermark. */
  async save(changes: {
    buckets: Bucket[];
    agents: AgentState[];
    flags: AccountFlag[];
    watermark: number | null;
  }): Promise<void> {
    const meta = crossAccount(this.m.Meta, 'summaries bookkeeping: generation and watermark');
    // One write after the other: concurrent writes to one database of the SQLite-backed store contend
    // for its lock (a flush once stalled for 87 s that way).
    if (changes.buckets.length + changes.agents.length > 0) {
      await this.log().insertOne(
        this.entry(
          changes.buckets.map((b) => this.bucketDoc(b)),
          changes.agents.map((s) => this.agentDoc(s)),
        ),
      );
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
    const docs: LogDoc[] = [];
    for (let i = 0; i < live.buckets.length; i += chunk)
      docs.push(
        this.entry(
          live.buckets.slice(i, i + chunk).map((b) => this.bucketDoc(b)),
          [],
        ),
      );
    for (let i = 0; i < live.agents.length; i += chunk)
      docs.push(
        this.entry(
          [],
          live.agents.slice(i, i + chunk).map((s) => this.agentDoc(s)),
        ),
      );
    for (const d of docs) await this.log(next).insertOne(d);
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

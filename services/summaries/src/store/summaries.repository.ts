import type { mongo } from 'mongoose';
import type { AgentState, Bucket, SummaryBook } from '../domain/book';
import type { Interval } from '../domain/buckets';
import type { AccountFlag } from '../domain/flags';
import type { AccountDoc, AgentDoc, BucketDoc, SummariesModels } from './summaries.models';

const bucketId = (b: Pick<Bucket, 'accountId' | 'agentId' | 'period'>) =>
  `${b.accountId}|${b.agentId}|${new Date(b.period).toISOString()}`;

/**
 * Keeps the in-memory summaries durable: one bulk write per collection per consumed batch (replacing the
 * changed documents whole, so a retried write is harmless), and everything loaded back at start.
 */
export class SummariesRepository {
  constructor(private readonly m: SummariesModels) {}

  /** Loads buckets of periods from `since` on, agent states and account flags into memory. */
  async load(book: SummaryBook, since: Date): Promise<{ flags: AccountFlag[]; watermark: number | null }> {
    const [buckets, agents, accounts, meta] = await Promise.all([
      this.m.Bucket.collection.find<BucketDoc>({ period: { $gte: since } }).toArray(),
      this.m.Agent.collection.find<AgentDoc>({}).toArray(),
      this.m.Account.collection.find<AccountDoc>({}).toArray(),
      this.m.Meta.collection.findOne<{ at: Date }>({ _id: 'watermark' as never }),
    ]);
    for (const b of buckets) book.loadBucket({ ...b, period: b.period.getTime(), revisedAt: b.revisedAt.getTime() });
    for (const a of agents)
      book.loadAgent({
        accountId: a.accountId,
        agentId: a.agentId,
        open: a.open.map((o) => ({ iv: o.iv as unknown as Interval, reach: o.reach })),
        closed: Object.entries(a.closed ?? {}),
      });
    return {
      flags: accounts.map((a) => ({ accountId: a._id, enabled: a.agentSummaries, at: a.flagsAt.getTime() })),
      watermark: meta ? meta.at.getTime() : null,
    };
  }

  /** Writes changed buckets, agent states and flags, and the watermark: a constant number of round trips. */
  async save(changes: {
    buckets: Bucket[];
    agents: AgentState[];
    flags: AccountFlag[];
    watermark: number | null;
  }): Promise<void> {
    const bucketOps: mongo.AnyBulkWriteOperation<BucketDoc>[] = changes.buckets.map((b) => {
      const doc: BucketDoc = {
        _id: bucketId(b),
        accountId: b.accountId,
        agentId: b.agentId,
        period: new Date(b.period),
        parts: Object.fromEntries(b.parts),
        revision: b.revision,
        revisedAt: new Date(b.revisedAt),
      };
      return { replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } };
    });
    const agentOps: mongo.AnyBulkWriteOperation<AgentDoc>[] = changes.agents.map((s) => {
      const doc: AgentDoc = {
        _id: `${s.accountId}|${s.agentId}`,
        accountId: s.accountId,
        agentId: s.agentId,
        open: [...s.open.values()].map((o) => ({ iv: o.iv as unknown as Record<string, unknown>, reach: o.reach })),
        // An object, not pairs: the portable store subset has no nested arrays.
        closed: Object.fromEntries(s.closed),
      };
      return { replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } };
    });
    const accountOps: mongo.AnyBulkWriteOperation<AccountDoc>[] = changes.flags.map((f) => ({
      replaceOne: {
        filter: { _id: f.accountId },
        replacement: { _id: f.accountId, agentSummaries: f.enabled, flagsAt: new Date(f.at) },
        upsert: true,
      },
    }));
    await Promise.all([
      bucketOps.length ? this.m.Bucket.collection.bulkWrite(bucketOps as never[], { ordered: false }) : undefined,
      agentOps.length ? this.m.Agent.collection.bulkWrite(agentOps as never[], { ordered: false }) : undefined,
      accountOps.length ? this.m.Account.collection.bulkWrite(accountOps as never[], { ordered: false }) : undefined,
      changes.watermark !== null
        ? this.m.Meta.collection.replaceOne(
            { _id: 'watermark' as never },
            { at: new Date(changes.watermark) },
            { upsert: true },
          )
        : undefined,
    ]);
  }

  /** Deletes buckets of periods before `before` (app-side expiry: no TTL indexes on the portable store). */
  async expire(before: Date): Promise<number> {
    return (await this.m.Bucket.collection.deleteMany({ period: { $lt: before } })).deletedCount;
  }
}

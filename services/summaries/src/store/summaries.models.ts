import { type Connection, type mongo, Schema } from 'mongoose';

/** A bucket as stored (`bucketId` is `<account>|<agent>|<period ISO>`). */
export interface BucketVersion {
  bucketId: string;
  accountId: string;
  agentId: string;
  period: Date;
  parts: Record<string, Record<string, number>>;
  revision: number;
  revisedAt: Date;
}

/** An agent's state as stored: open intervals and the keys of closed ones (`agentKey` is `<account>|<agent>`). */
export interface AgentVersion {
  agentKey: string;
  accountId: string;
  agentId: string;
  open: { iv: Record<string, unknown>; reach: number | null }[];
  closed: Record<string, number>;
}

/**
 * One log entry: the versions one consumed batch wrote (or one chunk of a compaction), as one JSON
 * text. Entries are only inserted; replayed in `v` order, the latest version of each bucket and agent wins.
 */
export interface LogDoc {
  _id: string;
  v: number;
  /** How many bucket versions the entry holds. */
  buckets: number;
  /** Format 1 (older entries): `{buckets: BucketVersion[], agents: AgentVersion[]}` as JSON. */
  data?: string;
  /** Format 2: the repository's packed entry (`{f: 2, b, a}`) as JSON, raw-deflated. */
  z?: mongo.Binary;
}

/** The summaries feature flag of an account, the latest by the event's occurredAt. */
export interface AccountDoc {
  _id: string;
  agentSummaries: boolean;
  flagsAt: Date;
}

/** The consumer's watermark (`_id: 'watermark'`) and the live generation of the version collections (`_id: 'generation'`). */
export interface MetaDoc {
  _id: string;
  at?: Date;
  generation?: number;
}

const accountSchema = new Schema<AccountDoc>(
  { _id: String, agentSummaries: { type: Boolean, required: true }, flagsAt: { type: Date, required: true } },
  { versionKey: false },
);

const metaSchema = new Schema<MetaDoc>({ _id: String, at: Date, generation: Number }, { versionKey: false });

/** The summaries service's fixed collections (the version collections are per generation, see the repository). */
export function summariesModels(conn: Connection) {
  return {
    Account: conn.models.SummaryAccount ?? conn.model<AccountDoc>('SummaryAccount', accountSchema, 'summary_accounts'),
    Meta: conn.models.SummaryMeta ?? conn.model<MetaDoc>('SummaryMeta', metaSchema, 'summary_meta'),
  };
}

/** The models of {@link summariesModels}. */
export type SummariesModels = ReturnType<typeof summariesModels>;

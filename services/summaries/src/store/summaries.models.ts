import { type Connection, Schema } from 'mongoose';

/** A stored bucket: `_id` is `<account>|<agent>|<period ISO>`; `parts` holds each interval's share. */
export interface BucketDoc {
  _id: string;
  accountId: string;
  agentId: string;
  period: Date;
  parts: Record<string, Record<string, number>>;
  revision: number;
  revisedAt: Date;
}

/** A stored agent state: its open intervals and the keys of closed ones (`_id` is `<account>|<agent>`). */
export interface AgentDoc {
  _id: string;
  accountId: string;
  agentId: string;
  open: { iv: Record<string, unknown>; reach: number | null }[];
  closed: Record<string, number>;
}

/** The summaries feature flag of an account, the latest by the event's occurredAt. */
export interface AccountDoc {
  _id: string;
  agentSummaries: boolean;
  flagsAt: Date;
}

/** The consumer's watermark, so a restarted service answers the upTo it had reached. */
export interface MetaDoc {
  _id: string;
  at: Date;
}

const bucketSchema = new Schema<BucketDoc>(
  {
    _id: String,
    accountId: { type: String, required: true },
    agentId: { type: String, required: true },
    period: { type: Date, required: true },
    parts: { type: Schema.Types.Mixed, default: {} },
    revision: { type: Number, required: true },
    revisedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false },
);
// The documented index on (account, timestamp); the hot query is served from memory (see README).
bucketSchema.index({ accountId: 1, period: -1 });

const agentSchema = new Schema<AgentDoc>(
  {
    _id: String,
    accountId: { type: String, required: true },
    agentId: { type: String, required: true },
    open: { type: Schema.Types.Mixed, default: [] },
    closed: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, minimize: false },
);

const accountSchema = new Schema<AccountDoc>(
  { _id: String, agentSummaries: { type: Boolean, required: true }, flagsAt: { type: Date, required: true } },
  { versionKey: false },
);

const metaSchema = new Schema<MetaDoc>({ _id: String, at: { type: Date, required: true } }, { versionKey: false });

/** The summaries service's collections. */
export function summariesModels(conn: Connection) {
  return {
    Bucket: conn.models.SummaryBucket ?? conn.model<BucketDoc>('SummaryBucket', bucketSchema, 'summary_buckets'),
    Agent: conn.models.SummaryAgent ?? conn.model<AgentDoc>('SummaryAgent', agentSchema, 'summary_agents'),
    Account: conn.models.SummaryAccount ?? conn.model<AccountDoc>('SummaryAccount', accountSchema, 'summary_accounts'),
    Meta: conn.models.SummaryMeta ?? conn.model<MetaDoc>('SummaryMeta', metaSchema, 'summary_meta'),
  };
}

/** The models of {@link summariesModels}. */
export type SummariesModels = ReturnType<typeof summariesModels>;

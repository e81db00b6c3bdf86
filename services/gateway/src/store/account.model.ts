import { outboxField } from '@cc/bus';
import { type Connection, type Model, Schema } from 'mongoose';
import type { FeatureFlags } from '../domain/feature-flags';

/** An account (tenant) as stored: `_id` is the account id. Not tenant-scoped: it is the tenant registry. */
export interface AccountDoc {
  _id: string;
  name: string;
  featureFlags: FeatureFlags;
  /** Rate-limit override of the account's clients; null: the gateway's defaults. */
  rateLimit: { rps: number; burst: number } | null;
  /** Optimistic concurrency: every change increments it and is conditional on the value read. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

const schema = new Schema<AccountDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    featureFlags: {
      agentSummaries: { type: Boolean, required: true },
      conversationAnalysis: { type: Boolean, required: true },
      v0Statistics: { type: Boolean, required: true },
    },
    rateLimit: { type: new Schema({ rps: Number, burst: Number }, { _id: false }), default: null },
    version: { type: Number, required: true, default: 0 },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    ...outboxField,
  },
  { versionKey: false, collection: 'accounts' },
);
schema.index({ createdAt: 1, _id: 1 });

/** The accounts model on the gateway's connection. */
export function accountModel(conn: Connection): Model<AccountDoc> {
  return (conn.models.Account as Model<AccountDoc> | undefined) ?? conn.model<AccountDoc>('Account', schema);
}

import { tenantScoped } from '@cc/store';
import { type Connection, type Model, Schema } from 'mongoose';

/** An API client of an account: `_id` is the client id; only a slow hash of the secret is kept. */
export interface ApiClientDoc {
  _id: string;
  accountId: string;
  name: string;
  scopes: string[];
  /** scrypt hash (`scrypt$N$r$p$salt$hash`); the secret itself is never stored. */
  secretHash: string;
  /** May manage every account (/admin/accounts); set only by the CLI or the demo seed. */
  platformAdmin: boolean;
  createdAt: Date;
}

const schema = new Schema<ApiClientDoc>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true },
    name: { type: String, required: true },
    scopes: { type: [String], required: true },
    secretHash: { type: String, required: true },
    platformAdmin: { type: Boolean, default: false },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'api_clients' },
);
schema.index({ accountId: 1, createdAt: 1, _id: 1 });
schema.plugin(tenantScoped);

/** The API clients model on the gateway's connection. */
export function apiClientModel(conn: Connection): Model<ApiClientDoc> {
  return (conn.models.ApiClient as Model<ApiClientDoc> | undefined) ?? conn.model<ApiClientDoc>('ApiClient', schema);
}

import { tenantScoped } from '@cc/store';
import { type Connection, type Model, Schema } from 'mongoose';

/** v0 credentials of an account: `_id` is the account key; only a slow hash of the API token is kept. */
export interface V0CredentialDoc {
  _id: string;
  accountId: string;
  tokenHash: string;
  createdAt: Date;
}

const schema = new Schema<V0CredentialDoc>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true },
    tokenHash: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'v0_credentials' },
);
schema.index({ accountId: 1, createdAt: 1, _id: 1 });
schema.plugin(tenantScoped);

/** The v0 credentials model on the gateway's connection. */
export function v0CredentialModel(conn: Connection): Model<V0CredentialDoc> {
  return (
    (conn.models.V0Credential as Model<V0CredentialDoc> | undefined) ??
    conn.model<V0CredentialDoc>('V0Credential', schema)
  );
}

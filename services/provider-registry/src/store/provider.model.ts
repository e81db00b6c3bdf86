import { type OutboxEntry, outboxField } from '@cc/bus';
import { tenantScoped } from '@cc/store';
import { type Connection, type Model, Schema } from 'mongoose';

/** A provider as stored: header values and signing secrets sealed (AES-256-GCM), a tombstone once deleted. */
export interface ProviderDoc {
  _id: string;
  accountId: string;
  name: string;
  endpoint: string | null;
  /** Header names in clear, values sealed with aad {@link headerAad}. */
  headers: { name: string; value: string }[];
  agentactionspermitted: Record<string, 0 | 1>;
  permissions: {
    release: boolean;
    hold: boolean;
    retrieve: boolean;
    transferToAgent: boolean;
    transferToRoute: boolean;
  };
  /** Secrets sealed with aad {@link signingSecretAad}; current first. */
  signingSecrets: { secret: string; createdAt: Date; validUntil: Date | null }[];
  /** The key id the sealed values were last written with (to find values to re-seal after a key rotation). */
  keyId: string;
  /** Grows with each registration, rotation and deletion (never reset, so consumers can keep the highest). */
  version: number;
  deleted: boolean;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  outbox: OutboxEntry[];
  outboxSeq: number;
}

const providerSchema = new Schema<ProviderDoc>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true },
    name: { type: String, required: true },
    endpoint: { type: String, default: null },
    headers: { type: [new Schema({ name: String, value: String }, { _id: false })], default: [] },
    // As registered (only the operations given), so the echo and the events repeat exactly what was sent.
    agentactionspermitted: { type: Schema.Types.Mixed, required: true },
    permissions: {
      release: Boolean,
      hold: Boolean,
      retrieve: Boolean,
      transferToAgent: Boolean,
      transferToRoute: Boolean,
    },
    signingSecrets: {
      type: [
        new Schema({ secret: String, createdAt: Date, validUntil: { type: Date, default: null } }, { _id: false }),
      ],
      default: [],
    },
    keyId: { type: String, required: true },
    version: { type: Number, required: true },
    deleted: { type: Boolean, default: false },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    deletedAt: { type: Date, default: null },
    // Staged events keep empty objects (`agentactionspermitted: {}`): the bus's entry schema does not minimize.
    ...outboxField,
  },
  { collection: 'providers', versionKey: false, minimize: false },
);
providerSchema.index({ accountId: 1, name: 1 }, { unique: true });
providerSchema.plugin(tenantScoped);

/** AAD binding a sealed header value to its account, provider and header name (stored values only). */
export const headerAad = (accountId: string, provider: string, header: string): string =>
  JSON.stringify(['provider-header', accountId, provider, header.toLowerCase()]);

/** AAD binding a sealed signing secret to its account and provider (stored values only). */
export const signingSecretAad = (accountId: string, provider: string): string =>
  JSON.stringify(['provider-signing-secret', accountId, provider]);

/**
 * The provider model on a service connection: tenant-scoped. The outbox relay reads and clears pending events by
 * `_id` across accounts on the driver (below the guard, the one exit `crossAccount` names), so it needs no
 * unscoped twin of this model.
 */
export function providerModels(conn: Connection): { Provider: Model<ProviderDoc> } {
  return { Provider: conn.model<ProviderDoc>('Provider', providerSchema) };
}

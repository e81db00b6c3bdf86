import { type Connection, type Model, Schema } from 'mongoose';

/** A token signing key pair: the private key sealed with the secret box, the public one as a JWK. */
export interface SigningKeyDoc {
  /** The key id (`kid`). */
  _id: string;
  alg: 'ES256';
  publicJwk: Record<string, unknown>;
  /** PKCS#8 PEM sealed with `CC_ENCRYPTION_KEYS` (AES-256-GCM, bound to the kid). */
  privateKeySealed: string;
  createdAt: Date;
  /** Signs from this instant (published in the JWKS before, so every replica and service knows it). */
  activatesAt: Date;
  /** Leaves the JWKS at this instant (set at rotation: after its last token expired); null while current. */
  retiresAt: Date | null;
}

const schema = new Schema<SigningKeyDoc>(
  {
    _id: { type: String, required: true },
    alg: { type: String, required: true },
    publicJwk: { type: Schema.Types.Mixed, required: true },
    privateKeySealed: { type: String, required: true },
    createdAt: { type: Date, required: true },
    activatesAt: { type: Date, required: true },
    retiresAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'signing_keys' },
);

/** The signing keys model on the gateway's connection. */
export function signingKeyModel(conn: Connection): Model<SigningKeyDoc> {
  return (
    (conn.models.SigningKey as Model<SigningKeyDoc> | undefined) ?? conn.model<SigningKeyDoc>('SigningKey', schema)
  );
}

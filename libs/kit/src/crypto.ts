import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** AES-256-GCM encryption of secrets at rest, with key ids so keys can rotate. */
export interface SecretBox {
  /** Id of the key new ciphertexts are written with. */
  activeKeyId: string;
  /** Encrypts to `v1.<kid>.<iv>.<tag>.<ciphertext>` (base64url parts); `aad` binds it to its owner. */
  seal(plaintext: string, aad?: string): string;
  /** Decrypts with whichever configured key wrote it; throws if tampered or the key is unknown. */
  open(sealed: string, aad?: string): string;
  /** The key id a sealed value was written with (to find values that need re-encryption). */
  keyIdOf(sealed: string): string;
}

/**
 * Builds a {@link SecretBox} from `CC_ENCRYPTION_KEYS`: comma-separated `<kid>:<base64 32-byte key>`,
 * the first one active. Old keys stay listed until every value was re-sealed.
 */
export function createSecretBox(spec: string): SecretBox {
  const keys = new Map<string, Buffer>();
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [kid, b64] = part.split(':');
    const key = Buffer.from(b64 ?? '', 'base64');
    if (!kid || !/^[A-Za-z0-9_-]{1,32}$/.test(kid) || key.length !== 32) {
      throw new Error('CC_ENCRYPTION_KEYS entries must be <kid>:<base64 of 32 bytes>');
    }
    keys.set(kid, key);
  }
  const activeKeyId = [...keys.keys()][0];
  if (!activeKeyId) throw new Error('CC_ENCRYPTION_KEYS names no key');
  const b64u = (b: Buffer) => b.toString('base64url');
  return {
    activeKeyId,
    seal(plaintext, aad = '') {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keys.get(activeKeyId) as Buffer, iv);
      cipher.setAAD(Buffer.from(aad));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', activeKeyId, b64u(iv), b64u(cipher.getAuthTag()), b64u(ct)].join('.');
    },
    open(sealed, aad = '') {
      const [v, kid, iv, tag, ct] = sealed.split('.');
      const key = keys.get(kid ?? '');
      if (v !== 'v1' || !key || !iv || !tag || ct === undefined)
        throw new Error('sealed value is malformed or its key is not configured');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(aad));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    },
    keyIdOf(sealed) {
      return sealed.split('.')[1] ?? '';
    },
  };
}

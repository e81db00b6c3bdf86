import { randomBytes } from 'node:crypto';
import type { Logger, SecretBox } from '@cc/kit';
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type JSONWebKeySet, type KeyLike } from 'jose';
import { accessTokenSeconds } from '../domain/token-claims';
import type { SigningKeyDoc } from '../store/signing-key.model';
import type { SigningKeyRepository } from '../store/signing-key.repository';

/** The key that signs right now. */
export interface ActiveKey {
  kid: string;
  privateKey: KeyLike;
}

/** A signing key as listed by the CLI (never the private part). */
export interface SigningKeyInfo {
  kid: string;
  createdAt: Date;
  activatesAt: Date;
  retiresAt: Date | null;
}

const aad = (kid: string) => `gateway-signing-key:${kid}`;
// Old keys stay published this long after the new one starts signing: the longest token lifetime plus clock skew.
const retireAfterMs = (accessTokenSeconds + 300) * 1000;

/**
 * ES256 token signing keys kept in the gateway's store, private parts sealed with the secret box. A rotated key is
 * published before it signs (activation delay) so every replica and every service's JWKS cache learns it first;
 * old keys stay published until their last token expired.
 */
export class KeyRing {
  private keys: SigningKeyDoc[] = [];
  private readonly privates = new Map<string, KeyLike>();
  /** Upcoming keys already tried (each is tried once per process). */
  private readonly triedUpcoming = new Set<string>();
  private timer?: NodeJS.Timeout;
  private jwksCache?: { at: number; jwks: JSONWebKeySet };
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly repo: SigningKeyRepository,
    private readonly box: SecretBox,
    private readonly opts: { activationDelayMs: number; logger: Logger },
  ) {}

  /** Reads the published keys; creates the first one (active at once) when there is none. */
  async init(): Promise<void> {
    await this.reload();
    if (!this.keys.length) {
      await this.createKey(new Date());
      this.opts.logger.info({ kid: this.keys[0]?._id }, 'first token signing key created');
    }
  }

  /**
   * Opens the key that signs now. A gateway given other `CC_ENCRYPTION_KEYS` than the ones that sealed it fails
   * at start with the reason, instead of starting and answering every token request with a 500.
   */
  async checkActive(): Promise<void> {
    const doc = this.signing(new Date());
    try {
      await this.active();
    } catch (err) {
      throw new Error(
        `token signing key ${doc?._id} cannot be opened with CC_ENCRYPTION_KEYS (it was sealed under encryption key id '${doc ? this.box.keyIdOf(doc.privateKeySealed) : ''}'): ${(err as Error).message}; start the gateway with the encryption keys that sealed it (if they are lost, delete the gateway's signing_keys collection: the next start makes a new key, and tokens signed with the old one stop being accepted)`,
      );
    }
  }

  /** Re-reads the keys (rotations by another replica or the CLI) and notifies listeners when the set changed. */
  async reload(): Promise<void> {
    const before = this.keys.map((k) => `${k._id}:${k.retiresAt?.getTime() ?? ''}`).join(',');
    this.keys = await this.repo.published(new Date());
    for (const kid of this.privates.keys()) if (!this.keys.some((k) => k._id === kid)) this.privates.delete(kid);
    const after = this.keys.map((k) => `${k._id}:${k.retiresAt?.getTime() ?? ''}`).join(',');
    if (before !== after) {
      this.jwksCache = undefined;
      for (const l of this.listeners) l();
    }
    await this.tryUpcoming(new Date());
  }

  /**
   * Opens each key that is published but not signing yet, once: a key rotated by a replica or the CLI under other
   * `CC_ENCRYPTION_KEYS` than this gateway's is reported now, while the current key still signs, and not by token
   * requests failing once it activates.
   */
  private async tryUpcoming(now: Date): Promise<void> {
    for (const doc of this.keys) {
      if (doc.activatesAt <= now || this.triedUpcoming.has(doc._id)) continue;
      this.triedUpcoming.add(doc._id);
      try {
        await this.open(doc);
      } catch (err) {
        this.opts.logger.error(
          {
            kid: doc._id,
            activatesAt: doc.activatesAt,
            encryptionKeyId: this.box.keyIdOf(doc.privateKeySealed),
            reason: (err as Error).message,
          },
          'upcoming token signing key cannot be opened with the CC_ENCRYPTION_KEYS of this process: a gateway with these keys will fail token requests once it activates; give every replica the encryption key that sealed it, or rotate again with the keys the replicas share',
        );
      }
    }
  }

  /** Reloads every `intervalMs` until {@link KeyRing.stop}. */
  start(intervalMs: number): void {
    const tick = () => {
      this.reload()
        .catch((err) => this.opts.logger.warn({ err: (err as Error).message }, 'signing key reload failed'))
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, intervalMs);
        });
    };
    this.timer = setTimeout(tick, intervalMs);
  }

  /** Stops reloading. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Called whenever the published set changes. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The stored key that signs at `now`: the newest whose activation time has come (else the first). */
  private signing(now: Date): SigningKeyDoc | undefined {
    return [...this.keys].reverse().find((k) => k.activatesAt <= now) ?? this.keys[0];
  }

  /** The newest key whose activation time has come. */
  async active(now = new Date()): Promise<ActiveKey> {
    const doc = this.signing(now);
    if (!doc) throw new Error('no signing key');
    return { kid: doc._id, privateKey: await this.open(doc) };
  }

  /** The private part of a stored key, opened once. */
  private async open(doc: SigningKeyDoc): Promise<KeyLike> {
    let privateKey = this.privates.get(doc._id);
    if (!privateKey) {
      privateKey = await importPKCS8(this.box.open(doc.privateKeySealed, aad(doc._id)), 'ES256');
      this.privates.set(doc._id, privateKey);
    }
    return privateKey;
  }

  /** The public keys of every published key (current, upcoming and retiring). */
  jwks(): JSONWebKeySet {
    const now = Date.now();
    if (this.jwksCache && now - this.jwksCache.at < 1000) return this.jwksCache.jwks;
    const keys = this.keys.filter((k) => !k.retiresAt || k.retiresAt.getTime() > now).map((k) => ({ ...k.publicJwk }));
    const jwks = { keys } as unknown as JSONWebKeySet;
    this.jwksCache = { at: now, jwks };
    return jwks;
  }

  /**
   * Creates a new key that signs after the activation delay and schedules the retirement of the others once
   * their last token expired. Returns the new key's id and activation time.
   */
  async rotate(now = new Date()): Promise<SigningKeyInfo> {
    const activatesAt = new Date(now.getTime() + this.opts.activationDelayMs);
    const doc = await this.createKey(activatesAt);
    await this.repo.retireOthers(doc._id, new Date(activatesAt.getTime() + retireAfterMs));
    await this.reload();
    this.opts.logger.info({ kid: doc._id, activatesAt }, 'token signing key rotated');
    return { kid: doc._id, createdAt: doc.createdAt, activatesAt, retiresAt: null };
  }

  /** Every stored key with its lifecycle times. */
  async list(): Promise<SigningKeyInfo[]> {
    return (await this.repo.all()).map((k) => ({
      kid: k._id,
      createdAt: k.createdAt,
      activatesAt: k.activatesAt,
      retiresAt: k.retiresAt,
    }));
  }

  private async createKey(activatesAt: Date): Promise<SigningKeyDoc> {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const kid = `k-${new Date().toISOString().slice(0, 10)}-${randomBytes(4).toString('hex')}`;
    const doc: SigningKeyDoc = {
      _id: kid,
      alg: 'ES256',
      publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' },
      privateKeySealed: this.box.seal(await exportPKCS8(privateKey), aad(kid)),
      createdAt: new Date(),
      activatesAt,
      retiresAt: null,
    };
    await this.repo.insert(doc);
    this.keys = [...this.keys, doc].sort((a, b) => a.activatesAt.getTime() - b.activatesAt.getTime());
    this.jwksCache = undefined;
    for (const l of this.listeners) l();
    return doc;
  }
}

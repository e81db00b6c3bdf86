import type { EffectivePermissions } from '../domain/types';
import { isDuplicateKey } from './errors';
import { FreshCache } from './fresh-cache';
import type { Models } from './models';

/** What routing knows of a registered provider. */
export interface ProviderInfo {
  name: string;
  permissions: EffectivePermissions;
  deleted: boolean;
  version: number;
}

/** The read model of cc.provider.v1 in routing's own database, keyed by account and provider name. */
export class ProviderRepository {
  private readonly cache: FreshCache<ProviderInfo>;

  /** `freshMs`: how long `lookup` keeps a registered provider in memory (events consumed here drop it at once). */
  constructor(
    private readonly models: Models,
    freshMs = 0,
  ) {
    this.cache = new FreshCache(freshMs);
  }

  /**
   * Applies one provider event if it is newer than what is stored (events carry the full state and a
   * version; an older or repeated event changes nothing).
   */
  async apply(
    accountId: string,
    name: string,
    version: number,
    state: { permissions: EffectivePermissions } | { deleted: true },
  ): Promise<void> {
    const set = 'deleted' in state ? { deleted: true } : { deleted: false, permissions: state.permissions };
    try {
      await this.models.providers.updateOne(
        { accountId, _id: `${accountId}:${name}`, version: { $lt: version } },
        { $set: { ...set, name, version, updatedAt: Date.now() } },
        { upsert: true },
      );
    } catch (err) {
      // The document exists with a version at least as high: this event is stale.
      if (!isDuplicateKey(err)) throw err;
    } finally {
      this.cache.drop(`${accountId}:${name}`);
    }
  }

  /** The provider of this exact name, unless unknown or deleted. */
  async get(accountId: string, name: string): Promise<ProviderInfo | null> {
    const d = await this.models.providers.findOne({ accountId, _id: `${accountId}:${name}` }).lean<ProviderInfo>();
    return d && !d.deleted ? { name: d.name, permissions: d.permissions, deleted: false, version: d.version } : null;
  }

  /**
   * The provider for Invoke: from memory when read less than `freshMs` ago, else as `get` (and kept). An
   * unknown name is always read again; a deletion or update consumed by another instance is seen here
   * within `freshMs`.
   */
  async lookup(accountId: string, name: string): Promise<ProviderInfo | null> {
    const key = `${accountId}:${name}`;
    const kept = this.cache.get(key);
    if (kept) return kept;
    return (await this.cache.load(key, async () => (await this.get(accountId, name)) ?? undefined)) ?? null;
  }
}

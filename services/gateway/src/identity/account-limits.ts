import { LRUCache } from 'lru-cache';
import { effectiveRateLimit, type RateLimit } from '../domain/rate-limit-policy';
import type { AccountRepository } from '../store/account.repository';

/** Accounts whose limits are remembered; beyond this the least recently used is forgotten (one store read later). */
const maxCachedAccounts = 10_000;

/** The rate limit of each account (its override or the default), cached so a request costs no store read. */
export class AccountLimits {
  private readonly cache: LRUCache<string, RateLimit> | null;

  constructor(
    private readonly repo: Pick<AccountRepository, 'get'>,
    private readonly defaults: RateLimit,
    ttlMs: number,
    maxAccounts = maxCachedAccounts,
  ) {
    // ttlMs 0 turns the cache off (tests that change an account and expect the next request to see it).
    this.cache = ttlMs > 0 ? new LRUCache({ max: maxAccounts, ttl: ttlMs }) : null;
  }

  /** The limit for the account's clients; the default when the account is unknown (e.g. an external issuer's). */
  async of(accountId: string): Promise<RateLimit> {
    const hit = this.cache?.get(accountId);
    if (hit) return hit;
    const doc = await this.repo.get(accountId);
    const limit = effectiveRateLimit(this.defaults, doc?.rateLimit);
    this.cache?.set(accountId, limit);
    return limit;
  }
}

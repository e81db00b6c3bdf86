import { effectiveRateLimit, type RateLimit } from '../domain/rate-limit-policy';
import type { AccountRepository } from '../store/account.repository';

/** The rate limit of each account (its override or the default), cached so a request costs no store read. */
export class AccountLimits {
  private readonly cache = new Map<string, { at: number; limit: RateLimit }>();

  constructor(
    private readonly repo: AccountRepository,
    private readonly defaults: RateLimit,
    private readonly ttlMs: number,
  ) {}

  /** The limit for the account's clients; the default when the account is unknown (e.g. an external issuer's). */
  async of(accountId: string): Promise<RateLimit> {
    const hit = this.cache.get(accountId);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.limit;
    const doc = await this.repo.get(accountId);
    const limit = effectiveRateLimit(this.defaults, doc?.rateLimit);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(accountId, { at: Date.now(), limit });
    return limit;
  }
}

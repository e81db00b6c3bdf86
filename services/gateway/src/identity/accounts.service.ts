import type { EagerPublisher } from '@cc/bus';
import { gatewayError, gatewayErrors } from '../domain/errors';
import { applyFlagsPatch, defaultFeatureFlags, type FeatureFlags } from '../domain/feature-flags';
import { checkRateLimit, type RateLimit } from '../domain/rate-limit-policy';
import { accountTopic, featureFlagsChanged } from '../events/account-events';
import type { AccountDoc } from '../store/account.model';
import type { AccountRepository } from '../store/account.repository';
import type { Page } from '../store/paging';

/** An account as the admin API shows it (libs/contracts `accountView`). */
export interface AccountView {
  accountId: string;
  name: string;
  featureFlags: FeatureFlags;
  createdAt: string;
  rateLimit?: RateLimit;
}

/** The view of a stored account. */
export function accountView(doc: AccountDoc, withRateLimit = false): AccountView {
  return {
    accountId: doc._id,
    name: doc.name,
    featureFlags: { ...defaultFeatureFlags, ...doc.featureFlags },
    createdAt: new Date(doc.createdAt).toISOString(),
    ...(withRateLimit && doc.rateLimit ? { rateLimit: doc.rateLimit } : {}),
  };
}

/**
 * Accounts and their feature flags. Every flag change is staged as `account.feature-flags-changed` in the same
 * write as the flags (outbox) and published eagerly when a publisher is at hand (the service), else by the running
 * gateway's relay loop (the CLI).
 */
export class AccountsService {
  constructor(
    private readonly repo: AccountRepository,
    private readonly publisher?: EagerPublisher,
  ) {}

  /** Creates an account; its initial flags are announced so read models know it. */
  async create(p: { accountId: string; name: string; featureFlags?: Partial<FeatureFlags>; traceparent?: string }) {
    const { flags, changed } = applyFlagsPatch(defaultFeatureFlags, p.featureFlags ?? {});
    const now = new Date();
    const event = featureFlagsChanged({ accountId: p.accountId, flags, changed, now, traceparent: p.traceparent });
    const doc = await this.repo.insert(
      { _id: p.accountId, name: p.name, featureFlags: flags, createdAt: now },
      accountTopic,
      [event],
    );
    await this.publisher?.soon(this.repo.model, p.accountId);
    return accountView(doc);
  }

  /** Creates the account unless it exists; true when created. */
  async ensure(p: { accountId: string; name: string }): Promise<boolean> {
    const flags = { ...defaultFeatureFlags };
    const now = new Date();
    const event = featureFlagsChanged({ accountId: p.accountId, flags, changed: [], now });
    const created = await this.repo.insertIfMissing(
      { _id: p.accountId, name: p.name, featureFlags: flags, createdAt: now },
      accountTopic,
      [event],
    );
    if (created) await this.publisher?.soon(this.repo.model, p.accountId);
    return created;
  }

  /** The account, or `GATEWAY.ACCOUNT_NOT_FOUND`. */
  async get(accountId: string): Promise<AccountDoc> {
    const doc = await this.repo.get(accountId);
    if (!doc) throw gatewayError(gatewayErrors.ACCOUNT_NOT_FOUND, `No account ${accountId}`);
    return doc;
  }

  /** One page of every account. */
  list(page: number, limit: number): Promise<Page<AccountDoc>> {
    return this.repo.list(page, limit);
  }

  /**
   * Applies a flags patch with optimistic concurrency; when something changed, the event is staged in the same
   * write. Returns the flags after the change.
   */
  async patchFlags(accountId: string, patch: Partial<FeatureFlags>, traceparent?: string): Promise<FeatureFlags> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const doc = await this.get(accountId);
      const { flags, changed } = applyFlagsPatch(doc.featureFlags, patch);
      if (!changed.length) return flags;
      const event = featureFlagsChanged({ accountId, flags, changed, traceparent });
      if (await this.repo.updateFlags(accountId, doc.version, flags, accountTopic, [event])) {
        await this.publisher?.soon(this.repo.model, accountId);
        return flags;
      }
    }
    throw gatewayError(gatewayErrors.CONCURRENT_UPDATE, 'The account changed concurrently; retry');
  }

  /** Sets (or clears with null) the account's rate-limit override. */
  async setRateLimit(accountId: string, limit: RateLimit | null): Promise<void> {
    if (limit) checkRateLimit(limit);
    if (!(await this.repo.setRateLimit(accountId, limit))) {
      throw gatewayError(gatewayErrors.ACCOUNT_NOT_FOUND, `No account ${accountId}`);
    }
  }
}

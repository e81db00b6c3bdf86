import { type CloudEvent, withEvents } from '@cc/bus';
import type { ProviderStateData } from '@cc/contracts';
import { crossAccount, isDuplicateKeyError } from '@cc/store';
import type { Model } from 'mongoose';
import type { NotifierModels, ProviderDoc } from './notifier.models';

/** The account and name of a provider. */
export interface ProviderRef {
  accountId: string;
  provider: string;
}

/** The notifier's provider read model: keeps the newest state per account and name. */
export class ProviderRepository {
  private readonly scoped: Model<ProviderDoc>;
  /** The providers model as the outbox relay addresses it (by `_id`, below the tenancy guard). */
  readonly system: Model<ProviderDoc>;

  constructor(models: NotifierModels) {
    this.scoped = models.providers;
    this.system = models.providers;
  }

  /**
   * Applies a registration or update if it is newer than what is kept (an older or repeated event
   * changes nothing). A registration clears a 410 disablement; a secret rotation does not.
   */
  async applyState(accountId: string, data: ProviderStateData, reregistered: boolean, now: Date): Promise<boolean> {
    const $set: Record<string, unknown> = {
      endpoint: data.endpoint,
      headerNames: data.headerNames,
      sealed: data.sealed,
      version: data.version,
      deleted: false,
      updatedAt: now,
    };
    if (reregistered) $set.disabledAt = null;
    return this.upsertNewer(accountId, data.provider, data.version, $set);
  }

  /** Applies a deletion if it is newer than what is kept (a tombstone: later events for older versions are ignored). */
  async applyDeleted(accountId: string, provider: string, version: number, now: Date): Promise<boolean> {
    return this.upsertNewer(accountId, provider, version, {
      endpoint: null,
      headerNames: [],
      sealed: null,
      version,
      deleted: true,
      updatedAt: now,
    });
  }

  private async upsertNewer(
    accountId: string,
    provider: string,
    version: number,
    $set: Record<string, unknown>,
  ): Promise<boolean> {
    try {
      const res = await this.scoped.updateOne(
        { accountId, provider, version: { $lt: version } },
        { $set, $setOnInsert: { ...('disabledAt' in $set ? {} : { disabledAt: null }), outbox: [], outboxSeq: 0 } },
        { upsert: true },
      );
      return res.modifiedCount + res.upsertedCount > 0;
    } catch (err) {
      // The unique (account, name) index refused the insert: a newer version is already kept.
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  /** One provider of an account. */
  async get(accountId: string, provider: string): Promise<ProviderDoc | null> {
    return this.scoped.findOne({ accountId, provider }, { outbox: 0, outboxPending: 0 }).lean<ProviderDoc>();
  }

  /** Every provider (read once at start: the pipeline keeps the read model in memory). */
  async all(): Promise<ProviderDoc[]> {
    return crossAccount<ProviderDoc>(this.scoped, "the dispatcher keeps every account's providers in memory")
      .find({}, { projection: { outbox: 0, outboxPending: 0 } })
      .toArray();
  }

  /**
   * Marks the provider's endpoint disabled (it answered 410) with the announcing event, once per
   * registration version. Returns the document id when this call disabled it.
   */
  async disable(ref: ProviderRef, version: number, event: CloudEvent, now: Date): Promise<unknown | undefined> {
    const doc = await this.scoped.findOneAndUpdate(
      { accountId: ref.accountId, provider: ref.provider, version, disabledAt: null },
      withEvents({ $set: { disabledAt: now } }, 'cc.notification-delivery.v1', [event]),
      { new: true },
    );
    return doc?._id;
  }

  /** One page of the account's providers that have an endpoint, by name. */
  async listWithEndpoint(
    accountId: string,
    page: number,
    limit: number,
  ): Promise<{ items: ProviderDoc[]; total: number }> {
    const filter = { accountId, deleted: false, endpoint: { $ne: null } };
    const [items, total] = await Promise.all([
      this.scoped
        .find(filter, { outbox: 0, outboxPending: 0, sealed: 0 })
        .sort({ provider: 1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean<ProviderDoc[]>(),
      this.scoped.countDocuments(filter),
    ]);
    return { items, total };
  }
}

import { type CloudEvent, outboxEntries, stagedFields, withEvents } from '@cc/bus';
import { crossAccount, isDuplicateKeyError } from '@cc/store';
import type { Model } from 'mongoose';
import { gatewayError, gatewayErrors } from '../domain/errors';
import type { FeatureFlags } from '../domain/feature-flags';
import type { RateLimit } from '../domain/rate-limit-policy';
import type { AccountDoc } from './account.model';
import { type Page, readPage } from './paging';

/** Accounts: the tenant registry (not tenant-scoped; only platform operations list every account). */
export class AccountRepository {
  constructor(readonly model: Model<AccountDoc>) {}

  /** Inserts an account with its first events in the same write; a taken id is `GATEWAY.ACCOUNT_EXISTS`. */
  async insert(
    doc: Omit<AccountDoc, 'version' | 'updatedAt' | 'rateLimit'>,
    topic: string,
    events: CloudEvent[],
  ): Promise<AccountDoc> {
    const full = {
      ...doc,
      rateLimit: null,
      version: 0,
      updatedAt: doc.createdAt,
      ...stagedFields(outboxEntries(topic, events)),
    };
    try {
      await crossAccount(this.model, 'tenant registry: accounts are platform data').insertOne(full as never);
    } catch (err) {
      if (isDuplicateKeyError(err)) throw gatewayError(gatewayErrors.ACCOUNT_EXISTS, `The account ${doc._id} exists`);
      throw err;
    }
    return { ...doc, rateLimit: null, version: 0, updatedAt: doc.createdAt };
  }

  /** Inserts the account unless it exists (idempotent seeding); true when it was inserted. */
  async insertIfMissing(
    doc: Omit<AccountDoc, 'version' | 'updatedAt' | 'rateLimit'>,
    topic: string,
    events: CloudEvent[],
  ): Promise<boolean> {
    const { _id, ...rest } = doc;
    const res = await this.model.updateOne(
      { _id },
      {
        $setOnInsert: {
          ...rest,
          rateLimit: null,
          version: 0,
          updatedAt: doc.createdAt,
          ...stagedFields(outboxEntries(topic, events)),
        },
      },
      { upsert: true },
    );
    return res.upsertedCount === 1;
  }

  /** The account, or undefined. */
  async get(accountId: string): Promise<AccountDoc | undefined> {
    return (
      (await this.model.findById(accountId, { outbox: 0, outboxSeq: 0, outboxPending: 0 }).lean<AccountDoc>()) ??
      undefined
    );
  }

  /** Every account, one page at a time (platform administration). */
  list(page: number, limit: number): Promise<Page<AccountDoc>> {
    return readPage<AccountDoc>(this.model, {}, page, limit);
  }

  /** Sets the flags and stages their event in one write, if the account is still at `version`; false otherwise. */
  async updateFlags(
    accountId: string,
    version: number,
    flags: FeatureFlags,
    topic: string,
    events: CloudEvent[],
  ): Promise<boolean> {
    const res = await this.model.updateOne(
      { _id: accountId, version },
      withEvents({ $set: { featureFlags: flags, updatedAt: new Date() }, $inc: { version: 1 } }, topic, events),
    );
    return res.matchedCount === 1;
  }

  /** Sets or clears (null) the account's rate-limit override; false if the account does not exist. */
  async setRateLimit(accountId: string, limit: RateLimit | null): Promise<boolean> {
    const res = await this.model.updateOne(
      { _id: accountId },
      { $set: { rateLimit: limit, updatedAt: new Date() }, $inc: { version: 1 } },
    );
    return res.matchedCount === 1;
  }
}

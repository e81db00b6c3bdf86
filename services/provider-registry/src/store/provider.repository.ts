import { type CloudEvent, outboxEntries, stagedFields, withEvents } from '@cc/bus';
import { isDuplicateKeyError } from '@cc/store';
import type { Model } from 'mongoose';
import { providerTopic } from '../events/topics';
import type { ProviderDoc } from './provider.model';

/** The stored fields a registration, rotation or deletion writes (values already sealed). */
export type ProviderFields = Partial<
  Pick<
    ProviderDoc,
    | 'endpoint'
    | 'headers'
    | 'agentactionspermitted'
    | 'permissions'
    | 'signingSecrets'
    | 'keyId'
    | 'version'
    | 'deleted'
    | 'createdAt'
    | 'updatedAt'
    | 'deletedAt'
  >
>;

/** A provider document as first inserted (without its outbox, which {@link ProviderRepository.insert} stages). */
export type NewProviderDoc = Omit<ProviderDoc, 'outbox' | 'outboxSeq'>;

/**
 * The providers collection, persistence only: equality reads by account and name, and single-document writes
 * that stage the events announcing them in the same write (outbox). Versions guard every change (optimistic
 * concurrency); what to write, sealing and the events themselves are the application service's.
 */
export class ProviderRepository {
  constructor(private readonly Provider: Model<ProviderDoc>) {}

  /** The account's document of this name, a deletion tombstone included, or null. */
  async findByName(accountId: string, name: string): Promise<ProviderDoc | null> {
    return this.Provider.findOne({ accountId, name }).lean<ProviderDoc>();
  }

  /** The account's live (not deleted) provider of this name, or null. */
  async findLive(accountId: string, name: string): Promise<ProviderDoc | null> {
    return this.Provider.findOne({ accountId, name, deleted: false }).lean<ProviderDoc>();
  }

  /** One page of the account's live providers, by name, with the total. */
  async list(accountId: string, page: number, limit: number): Promise<{ docs: ProviderDoc[]; total: number }> {
    const filter = { accountId, deleted: false };
    const [docs, total] = await Promise.all([
      this.Provider.find(filter)
        .sort({ name: 1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean<ProviderDoc[]>(),
      this.Provider.countDocuments(filter),
    ]);
    return { docs, total };
  }

  /** Inserts a new provider with its events staged; false when the name was inserted concurrently. */
  async insert(doc: NewProviderDoc, events: CloudEvent[]): Promise<boolean> {
    try {
      await this.Provider.create({ ...doc, ...stagedFields(outboxEntries(providerTopic, events)) });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  /** Sets `fields` and stages `events` if the document is still at `version`; false when it changed meanwhile. */
  async updateIfVersion(
    accountId: string,
    name: string,
    version: number,
    fields: ProviderFields,
    events: CloudEvent[],
  ): Promise<boolean> {
    const written = await this.Provider.updateOne(
      { accountId, name, version },
      withEvents({ $set: fields }, providerTopic, events),
    );
    return written.matchedCount === 1;
  }
}

import { randomUUID } from 'node:crypto';
import { type OutboxModel, type OutboxRelay, outboxEntries, withEvents } from '@cc/bus';
import { AppError, type SecretBox } from '@cc/kit';
import { isDuplicateKeyError } from '@cc/store';
import type { Model } from 'mongoose';
import type { ProviderHeader, ProviderInput } from '../domain/provider-settings';
import { planRegistration } from '../domain/registration';
import { rotateSecrets, type SigningSecret } from '../domain/signing-secret';
import { providerDeletedEvent, providerStateEvent } from '../events/provider.events';
import { providerTopic } from '../events/topics';
import { headerAad, type ProviderDoc, signingSecretAad } from './provider.model';

/** How long a write waits for its eager publish before answering anyway. */
const eagerPublishWaitMs = 1000;

/** A registered provider without its secrets: what the admin API and the Register response show. */
export interface ProviderRecord {
  name: string;
  endpoint: string | null;
  headerNames: string[];
  agentactionspermitted: ProviderDoc['agentactionspermitted'];
  permissions: ProviderDoc['permissions'];
  createdAt: Date;
  updatedAt: Date;
}

/** The outcome of a registration. */
export interface RegisterResult {
  created: boolean;
  version: number;
  record: ProviderRecord;
  /** Only when created: the signing secret, to be shown this once. */
  signingSecret?: string;
}

/** Dependencies of {@link ProviderRepository}. */
export interface ProviderRepositoryDeps {
  Provider: Model<ProviderDoc>;
  /** The relay's view of the providers collection (see `providerModels`). */
  ProviderOutbox: OutboxModel;
  relay: OutboxRelay;
  box: SecretBox;
  /** A fresh Standard Webhooks signing secret. */
  newSecret: () => string;
  /** How long a rotated-out signing secret keeps signing. */
  graceSeconds: number;
  now?: () => Date;
}

/** Optimistic-concurrency retries before a write gives up with 409 (only under heavy concurrent writes of one name). */
const maxAttempts = 5;

const conflict = () =>
  new AppError('REQUEST.CONFLICT', 'The provider was changed concurrently by another request; retry the request');

const toRecord = (doc: ProviderDoc): ProviderRecord => ({
  name: doc.name,
  endpoint: doc.endpoint ?? null,
  headerNames: (doc.headers ?? []).map((h) => h.name),
  agentactionspermitted: doc.agentactionspermitted ?? {},
  permissions: doc.permissions,
  createdAt: doc.createdAt,
  updatedAt: doc.updatedAt,
});

/**
 * The provider aggregate in the store: every change is one single-document write carrying its event in the
 * outbox (no transactions), guarded by `version` (optimistic concurrency), then published eagerly.
 * Header values and signing secrets are sealed before they reach the store and opened only to build events.
 */
export class ProviderRepository {
  private readonly now: () => Date;
  /** Eager publishes in progress per document: chained so concurrent writes do not publish the same entries twice. */
  private readonly flushing = new Map<string, Promise<void>>();

  constructor(private readonly deps: ProviderRepositoryDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** Creates (201) or replaces (200) the account's provider of this name; deleted names are created anew. */
  async register(accountId: string, input: ProviderInput, traceparent?: string): Promise<RegisterResult> {
    const { Provider, box } = this.deps;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const existing = await Provider.findOne({ accountId, name: input.name }).lean<ProviderDoc>();
      const now = this.now();
      const plan = planRegistration(
        existing
          ? {
              version: existing.version,
              deleted: existing.deleted,
              createdAt: existing.createdAt,
              signingSecrets: this.openSecrets(existing),
            }
          : null,
        now,
        this.deps.newSecret,
      );
      const event = providerStateEvent(
        box,
        plan.created ? 'provider.registered' : 'provider.updated',
        { accountId, ...input, signingSecrets: plan.signingSecrets, version: plan.version },
        now,
        { ...(plan.created ? {} : { reason: 're-registered' as const }), ...(traceparent ? { traceparent } : {}) },
      );
      const fields = {
        endpoint: input.endpoint,
        headers: this.sealHeaders(accountId, input.name, input.headers),
        agentactionspermitted: input.agentactionspermitted,
        permissions: input.permissions,
        signingSecrets: this.sealSecrets(accountId, input.name, plan.signingSecrets),
        keyId: box.activeKeyId,
        version: plan.version,
        deleted: false,
        createdAt: plan.createdAt,
        updatedAt: now,
        deletedAt: null,
      };
      let id: string;
      if (!existing) {
        id = randomUUID();
        try {
          await Provider.create({
            _id: id,
            accountId,
            name: input.name,
            ...fields,
            outbox: outboxEntries(providerTopic, [event]),
            outboxSeq: 1,
          });
        } catch (err) {
          if (isDuplicateKeyError(err)) continue; // registered concurrently: replace it instead
          throw err;
        }
      } else {
        id = existing._id;
        const written = await Provider.updateOne(
          { accountId, name: input.name, version: existing.version },
          withEvents({ $set: fields }, providerTopic, [event]),
        );
        if (written.matchedCount !== 1) continue;
      }
      await this.publish(id);
      return {
        created: plan.created,
        version: plan.version,
        record: {
          name: input.name,
          endpoint: input.endpoint,
          headerNames: input.headers.map((h) => h.name),
          agentactionspermitted: input.agentactionspermitted,
          permissions: input.permissions,
          createdAt: plan.createdAt,
          updatedAt: now,
        },
        ...(plan.newSecret ? { signingSecret: plan.newSecret } : {}),
      };
    }
    throw conflict();
  }

  /** The account's live provider of this name, or null. */
  async get(accountId: string, name: string): Promise<ProviderRecord | null> {
    const doc = await this.deps.Provider.findOne({ accountId, name, deleted: false }).lean<ProviderDoc>();
    return doc ? toRecord(doc) : null;
  }

  /** One page of the account's live providers, by name. */
  async list(accountId: string, page: number, limit: number): Promise<{ items: ProviderRecord[]; total: number }> {
    const filter = { accountId, deleted: false };
    const [docs, total] = await Promise.all([
      this.deps.Provider.find(filter)
        .sort({ name: 1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .lean<ProviderDoc[]>(),
      this.deps.Provider.countDocuments(filter),
    ]);
    return { items: docs.map(toRecord), total };
  }

  /**
   * Deletes the provider, emitting provider.deleted. A tombstone keeps the name's version (so versions keep
   * growing if the name is registered again); its endpoint, headers and secrets are erased. False if none.
   */
  async delete(accountId: string, name: string, traceparent?: string): Promise<boolean> {
    const { Provider } = this.deps;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const existing = await Provider.findOne({ accountId, name, deleted: false }).lean<ProviderDoc>();
      if (!existing) return false;
      const now = this.now();
      const version = existing.version + 1;
      const event = providerDeletedEvent(accountId, name, version, now, traceparent);
      const written = await Provider.updateOne(
        { accountId, name, version: existing.version },
        withEvents(
          {
            $set: {
              deleted: true,
              deletedAt: now,
              updatedAt: now,
              version,
              endpoint: null,
              headers: [],
              signingSecrets: [],
            },
          },
          providerTopic,
          [event],
        ),
      );
      if (written.matchedCount !== 1) continue;
      await this.publish(existing._id);
      return true;
    }
    throw conflict();
  }

  /**
   * Rotates the signing secret: the new one is returned once and signs from now; the previous one keeps
   * signing until `previousValidUntil`. Emits provider.updated (reason signing-secret-rotated). Null if none.
   */
  async rotateSigningSecret(
    accountId: string,
    name: string,
    traceparent?: string,
  ): Promise<{ signingSecret: string; previousValidUntil: Date } | null> {
    const { Provider, box } = this.deps;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const existing = await Provider.findOne({ accountId, name, deleted: false }).lean<ProviderDoc>();
      if (!existing) return null;
      const now = this.now();
      const fresh = this.deps.newSecret();
      const { secrets, previousValidUntil } = rotateSecrets(
        this.openSecrets(existing),
        fresh,
        now,
        this.deps.graceSeconds,
      );
      const version = existing.version + 1;
      const headers = existing.headers.map((h) => ({
        name: h.name,
        value: box.open(h.value, headerAad(accountId, name, h.name)),
      }));
      const event = providerStateEvent(
        box,
        'provider.updated',
        {
          accountId,
          name,
          endpoint: existing.endpoint ?? null,
          headers,
          agentactionspermitted: existing.agentactionspermitted,
          permissions: existing.permissions,
          signingSecrets: secrets,
          version,
        },
        now,
        { reason: 'signing-secret-rotated', ...(traceparent ? { traceparent } : {}) },
      );
      const written = await Provider.updateOne(
        { accountId, name, version: existing.version },
        withEvents(
          {
            $set: {
              signingSecrets: this.sealSecrets(accountId, name, secrets),
              headers: this.sealHeaders(accountId, name, headers),
              keyId: box.activeKeyId,
              version,
              updatedAt: now,
            },
          },
          providerTopic,
          [event],
        ),
      );
      if (written.matchedCount !== 1) continue;
      await this.publish(existing._id);
      return { signingSecret: fresh, previousValidUntil };
    }
    throw conflict();
  }

  /**
   * Publishes the document's staged events now, in order per provider, and waits for that at most
   * {@link eagerPublishWaitMs}: usually the event is out before the answer (routing learns the provider
   * sooner), while a Kafka outage never holds the request (the relay publishes what this misses).
   */
  private async publish(id: string): Promise<void> {
    const previous = this.flushing.get(id) ?? Promise.resolve();
    const next = previous.then(() => this.deps.relay.flushSoon(this.deps.ProviderOutbox, id));
    this.flushing.set(id, next);
    void next.finally(() => {
      if (this.flushing.get(id) === next) this.flushing.delete(id);
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      next,
      new Promise<void>((r) => {
        timer = setTimeout(r, eagerPublishWaitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  private sealHeaders(accountId: string, name: string, headers: ProviderHeader[]): ProviderDoc['headers'] {
    return headers.map((h) => ({
      name: h.name,
      value: this.deps.box.seal(h.value, headerAad(accountId, name, h.name)),
    }));
  }

  private sealSecrets(accountId: string, name: string, secrets: SigningSecret[]): ProviderDoc['signingSecrets'] {
    const aad = signingSecretAad(accountId, name);
    return secrets.map((s) => ({
      secret: this.deps.box.seal(s.secret, aad),
      createdAt: s.createdAt,
      validUntil: s.validUntil,
    }));
  }

  private openSecrets(doc: ProviderDoc): SigningSecret[] {
    const aad = signingSecretAad(doc.accountId, doc.name);
    return (doc.signingSecrets ?? []).map((s) => ({
      secret: this.deps.box.open(s.secret, aad),
      createdAt: new Date(s.createdAt),
      validUntil: s.validUntil ? new Date(s.validUntil) : null,
    }));
  }
}

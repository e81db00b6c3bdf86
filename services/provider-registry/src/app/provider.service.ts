import { randomUUID } from 'node:crypto';
import type { CloudEvent, EagerPublisher, OutboxModel } from '@cc/bus';
import { AppError, type SecretBox } from '@cc/kit';
import type { ProviderHeader, ProviderInput } from '../domain/provider-settings';
import { planRegistration } from '../domain/registration';
import { rotateSecrets, type SigningSecret } from '../domain/signing-secret';
import { providerDeletedEvent, providerStateEvent } from '../events/provider.events';
import { headerAad, type ProviderDoc, signingSecretAad } from '../store/provider.model';
import type { ProviderFields, ProviderRepository } from '../store/provider.repository';

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

/** Dependencies of {@link ProviderService}. */
export interface ProviderServiceDeps {
  repository: ProviderRepository;
  /** Publishes a write's staged events right after it (the bus's one eager path). */
  publisher: EagerPublisher;
  /** The relay's view of the providers collection (see `providerModels`). */
  outbox: OutboxModel;
  box: SecretBox;
  /** A fresh Standard Webhooks signing secret. */
  newSecret: () => string;
  /** How long a rotated-out signing secret keeps signing. */
  graceSeconds: number;
  now?: () => Date;
}

/**
 * How long a write waits for its eager publish before answering anyway: usually the event is out before the answer
 * (routing learns the provider sooner), while a Kafka outage never holds the request (the relay sends it later).
 */
const eagerPublishWaitMs = 1000;

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
 * The provider registry's use cases: plans each change (domain), seals header values and signing secrets before
 * they reach the store, builds the event announcing the change, has the repository write both in one
 * version-guarded document write, then publishes eagerly. A write that lost a version race is planned again.
 */
export class ProviderService {
  private readonly now: () => Date;

  constructor(private readonly deps: ProviderServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** Creates (201) or replaces (200) the account's provider of this name; deleted names are created anew. */
  async register(accountId: string, input: ProviderInput, traceparent?: string): Promise<RegisterResult> {
    const { repository, box } = this.deps;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const existing = await repository.findByName(accountId, input.name);
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
      if (!existing) {
        const id = randomUUID();
        // Registered concurrently: the next attempt replaces it instead.
        if (!(await repository.insert({ _id: id, accountId, name: input.name, ...fields }, [event]))) continue;
        await this.deps.publisher.soon(this.deps.outbox, id, { waitMs: eagerPublishWaitMs });
      } else if (!(await this.write(existing, fields, event))) {
        continue;
      }
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
    const doc = await this.deps.repository.findLive(accountId, name);
    return doc ? toRecord(doc) : null;
  }

  /** One page of the account's live providers, by name. */
  async list(accountId: string, page: number, limit: number): Promise<{ items: ProviderRecord[]; total: number }> {
    const { docs, total } = await this.deps.repository.list(accountId, page, limit);
    return { items: docs.map(toRecord), total };
  }

  /**
   * Deletes the provider, emitting provider.deleted. A tombstone keeps the name's version (so versions keep
   * growing if the name is registered again); its endpoint, headers and secrets are erased. False if none.
   */
  async delete(accountId: string, name: string, traceparent?: string): Promise<boolean> {
    const { repository } = this.deps;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const existing = await repository.findLive(accountId, name);
      if (!existing) return false;
      const now = this.now();
      const version = existing.version + 1;
      const event = providerDeletedEvent(accountId, name, version, now, traceparent);
      const fields = {
        deleted: true,
        deletedAt: now,
        updatedAt: now,
        version,
        endpoint: null,
        headers: [],
        signingSecrets: [],
      };
      if (!(await this.write(existing, fields, event))) continue;
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
    const { repository, box } = this.deps;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const existing = await repository.findLive(accountId, name);
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
      const fields = {
        signingSecrets: this.sealSecrets(accountId, name, secrets),
        headers: this.sealHeaders(accountId, name, headers),
        keyId: box.activeKeyId,
        version,
        updatedAt: now,
      };
      if (!(await this.write(existing, fields, event))) continue;
      return { signingSecret: fresh, previousValidUntil };
    }
    throw conflict();
  }

  /** Writes a change of an existing provider with its event, guarded by the version read; publishes if written. */
  private async write(existing: ProviderDoc, fields: ProviderFields, event: CloudEvent): Promise<boolean> {
    const written = await this.deps.repository.updateIfVersion(
      existing.accountId,
      existing.name,
      existing.version,
      fields,
      [event],
    );
    if (written) await this.deps.publisher.soon(this.deps.outbox, existing._id, { waitMs: eagerPublishWaitMs });
    return written;
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

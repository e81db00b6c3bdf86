import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { type CloudEvent, createKafka, EventProducer, EventSchemas, ensureTopics, newEvent } from '@cc/bus';
import { createLogger, createSecretBox, type SecretBox } from '@cc/kit';
import type { Runtime } from '@cc/runtime';
import {
  CapturedLogs,
  committedThrough,
  freshName,
  startTestIssuer,
  type TestIssuer,
  testInfra,
  topicOffsets,
} from '@cc/testing';
import type { Kafka } from 'kafkajs';
import { loadServiceConfig } from '../../src/config';
import { sealedAad } from '../../src/domain/sealed-secrets';
import { startService } from '../../src/service';
import { selfSignedCertificate, type TestCertificate } from './tls';

/** A fresh `whsec_` signing secret. */
export const newSigningSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** Moves a fresh consumer group to the end of the topics, so the service sees only this test's events. */
export async function skipToEnd(kafka: Kafka, groupId: string, topics: string[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const topic of topics) {
      const offsets = await topicOffsets(admin, topic);
      await admin.setOffsets({
        groupId,
        topic,
        partitions: offsets.map((o) => ({ partition: o.partition, offset: o.high })),
      });
    }
  } finally {
    await admin.disconnect();
  }
}

/** A provider registration as the test publishes it. */
export interface ProviderSpec {
  accountId: string;
  provider: string;
  endpoint: string | null;
  headers?: { key: string; value: string }[];
  secrets: { secret: string; validUntil: string | null }[];
  version: number;
  type?: 'provider.registered' | 'provider.updated';
  reason?: 're-registered' | 'signing-secret-rotated';
}

/** One interaction's events as routing would publish them. */
export interface InteractionScript {
  interactionId: string;
  queued: CloudEvent;
  assigned: CloudEvent;
  released: CloudEvent;
}

/**
 * Starts the notifier in-process against the real Kafka and store with a fresh database and a
 * fresh consumer group (moved to the end of the topics), a test token issuer, a self-signed
 * certificate trusted through NOTIFIER_EXTRA_CA_FILE and loopback allowed through ENDPOINT_ALLOWLIST.
 */
export class NotifierHarness {
  runtime?: Runtime;
  /** Base URL of a notifier started elsewhere (a child process); else the in-process one's. */
  baseUrl?: string;
  readonly logs = new CapturedLogs();
  readonly box: SecretBox;
  private constructor(
    readonly env: Record<string, string>,
    readonly kafka: Kafka,
    readonly producer: EventProducer,
    readonly issuer: TestIssuer,
    readonly tls: TestCertificate,
  ) {
    this.box = createSecretBox(env.CC_ENCRYPTION_KEYS as string);
  }

  /** Prepares infrastructure and settings; `overrides` are extra environment variables. */
  static async create(overrides: Record<string, string> = {}): Promise<NotifierHarness> {
    const infra = await testInfra();
    const issuer = await startTestIssuer();
    const tls = selfSignedCertificate();
    const logger = createLogger('notifier-test', 'silent');
    const kafka = createKafka({ brokers: infra.kafkaBrokers, clientId: 'notifier-test', logger });
    const topics = ['cc.provider.v1', 'cc.interaction.v1'];
    await ensureTopics(
      kafka,
      topics.map((topic) => ({ topic, numPartitions: 6, replicationFactor: -1 })),
    );
    const group = freshName('cc.notifier.test');
    await skipToEnd(kafka, group, topics);
    const producer = new EventProducer(kafka, new EventSchemas(), logger);
    await producer.connect();
    const env: Record<string, string> = {
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: freshName('cc_notifier_test'),
      LOG_LEVEL: 'info',
      CC_ENCRYPTION_KEYS: `t1:${randomBytes(32).toString('base64')}`,
      KAFKA_GROUP_ID: group,
      ENDPOINT_ALLOWLIST: '127.0.0.1,localhost',
      NOTIFIER_EXTRA_CA_FILE: tls.certPath,
      ...issuer.env,
      ...overrides,
    };
    return new NotifierHarness(env, kafka, producer, issuer, tls);
  }

  /** Starts the service in this process. */
  async start(): Promise<Runtime> {
    const loaded = loadServiceConfig(this.env, (problems) => {
      throw new Error(problems.join('; '));
    });
    // PORT 0 (any free port) is not a valid PORT variable, so it is set after parsing.
    const config = Object.freeze({ ...loaded, PORT: 0 });
    this.runtime = await startService(config, { exitOnShutdown: false, logDestination: this.logs });
    return this.runtime;
  }

  /** Stops the service (if started) and the test's own clients. */
  async close(): Promise<void> {
    await this.runtime?.stop();
    // Debugging aid: NOTIFIER_TEST_LOG_FILE=/tmp/x.log keeps the service's log lines.
    if (process.env.NOTIFIER_TEST_LOG_FILE) appendFileSync(process.env.NOTIFIER_TEST_LOG_FILE, `${this.logs.text()}\n`);
    await this.producer.disconnect();
    await this.issuer.close();
  }

  /** An admin token for an account. */
  token(accountId: string, scopes = 'admin'): Promise<string> {
    return this.issuer.token({ accountId, scopes });
  }

  /** Calls the service's HTTP API. */
  async api(method: string, path: string, accountId: string | null, body?: unknown) {
    const headers: Record<string, string> = {};
    if (accountId) headers.authorization = `Bearer ${await this.token(accountId)}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl ?? this.runtime?.url()}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  }

  /** Publishes a provider registration (secrets sealed as the registry seals them). */
  async publishProvider(p: ProviderSpec): Promise<CloudEvent> {
    const [, kid, iv, tag, ciphertext] = this.box
      .seal(
        JSON.stringify({ headers: p.headers ?? [], signingSecrets: p.secrets }),
        sealedAad(p.accountId, p.provider, p.version),
      )
      .split('.');
    const event = newEvent({
      source: '/cc/provider-registry',
      type: p.type ?? 'provider.registered',
      subject: p.provider,
      accountId: p.accountId,
      data: {
        provider: p.provider,
        endpoint: p.endpoint,
        headerNames: (p.headers ?? []).map((h) => h.key),
        agentactionspermitted: { release: 1 },
        permissions: { release: true, hold: false, retrieve: false, transferToAgent: false, transferToRoute: false },
        sealed: { kid, alg: 'A256GCM', iv, tag, ciphertext },
        version: p.version,
        occurredAt: new Date().toISOString(),
        ...(p.reason ? { reason: p.reason } : {}),
      },
    });
    await this.producer.publish('cc.provider.v1', [event]);
    return event;
  }

  /** Builds one interaction's queued, assigned and released events (not published). */
  interaction(accountId: string, provider: string | null, externalId: string | null = null): InteractionScript {
    const interactionId = randomUUID();
    const agentId = randomUUID();
    const core = (sequence: number) => ({
      interactionId,
      conversationId: randomUUID(),
      externalId,
      provider,
      interactionType: 'live',
      medium: 'Phone',
      mediumManager: 'CC',
      direction: 'Inbound',
      occurredAt: new Date().toISOString(),
      sequence,
    });
    const ev = (type: string, data: Record<string, unknown>) =>
      newEvent({ source: '/cc/routing', type, subject: interactionId, accountId, data });
    const agent = { agentId, agentUsername: 'jane.doe', channelId: randomUUID() };
    return {
      interactionId,
      queued: ev('interaction.queued', {
        ...core(1),
        requestId: 'req-1',
        route: 'Support',
        interactionPlan: 'Support Plan',
        skills: [],
        personalQueue: null,
      }),
      assigned: ev('interaction.assigned', { ...core(4), ...agent, offerId: randomUUID(), ringingMs: 100 }),
      released: ev('interaction.released', {
        ...core(9),
        ...agent,
        releasedBy: 'agent',
        previousState: 'wrap',
        endReason: 'Released',
        durationMs: 5000,
      }),
    };
  }

  /** Waits until the notifier has handled and committed every interaction event published so far. */
  async handledSoFar(): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      await committedThrough(admin, this.env.KAFKA_GROUP_ID as string, 'cc.interaction.v1');
    } finally {
      await admin.disconnect();
    }
  }

  /** Publishes interaction events in order (one send, so they keep their order on their partition). */
  async publishInteraction(events: CloudEvent[]): Promise<void> {
    await this.producer.publish('cc.interaction.v1', events);
  }
}

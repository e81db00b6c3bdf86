import { createKafka, EventProducer, EventSchemas, ensureTopics, newEvent } from '@cc/bus';
import { bodyValidator, type JsonSchema } from '@cc/contracts';
import { createLogger } from '@cc/kit';
import { CapturedLogs, freshName, startTestIssuer, type TestIssuer, testInfra, topicOffsets } from '@cc/testing';
import type { Kafka } from 'kafkajs';
import { loadServiceConfig } from '../../src/config';
import { consumedTopics } from '../../src/events/topics';
import { type StatisticsService, startService } from '../../src/service';

/** Moves a fresh consumer group to the end of the topics, so it reads only what the test publishes. */
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

/** The statistics service in-process on the real broker and store, a fresh database and consumer group. */
export class StatisticsHarness {
  service?: StatisticsService;
  readonly logs = new CapturedLogs();

  private constructor(
    readonly env: Record<string, string>,
    readonly kafka: Kafka,
    readonly producer: EventProducer,
    readonly issuer: TestIssuer,
  ) {}

  static async create(overrides: Record<string, string> = {}): Promise<StatisticsHarness> {
    const infra = await testInfra();
    const issuer = await startTestIssuer();
    const logger = createLogger('statistics-test', 'silent');
    const kafka = createKafka({ brokers: infra.kafkaBrokers, clientId: 'statistics-test', logger });
    await ensureTopics(
      kafka,
      consumedTopics.map((topic) => ({ topic, numPartitions: 6, replicationFactor: -1 })),
    );
    const group = freshName('cc.statistics.test');
    await skipToEnd(kafka, group, consumedTopics);
    const producer = new EventProducer(kafka, new EventSchemas(), logger);
    await producer.connect();
    const env = {
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: freshName('cc_statistics_test'),
      LOG_LEVEL: 'info',
      KAFKA_GROUP_ID: group,
      SHUTDOWN_DEADLINE_MS: '20000',
      ...issuer.env,
      ...overrides,
    };
    return new StatisticsHarness(env, kafka, producer, issuer);
  }

  async start(): Promise<StatisticsService> {
    const config = Object.freeze({ ...loadServiceConfig(this.env), PORT: 0 });
    this.service = await startService(config, { exitOnShutdown: false, logDestination: this.logs });
    return this.service;
  }

  /** Publishes events as their producer would: keyed by account and aggregate, validated. */
  async publish(topic: string, accountId: string, subject: string, events: { type: string; data: unknown }[]) {
    const source = '/cc/routing'; // the producer of both topics (the contract's envelope: /cc/<service>)
    await this.producer.publish(
      topic,
      events.map((e) => newEvent({ source, type: e.type, subject, accountId, data: e.data })),
    );
  }

  /** GET on the service with a bearer token. */
  async get(path: string, token: string | null, accept?: string) {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (accept) headers.accept = accept;
    const res = await fetch(`${this.service?.url()}${path}`, { headers });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  statsToken(accountId: string) {
    return this.issuer.token({ accountId, scopes: 'stats' });
  }

  v0Token(accountId: string, accountKey: string) {
    return this.issuer.token({ accountId, scopes: 'v0', clientId: accountKey, v0: true });
  }

  async close(): Promise<void> {
    const s = this.service;
    if (s) {
      await s.conn
        .getClient()
        .db(this.env.MONGO_DB)
        .dropDatabase()
        .catch(() => undefined);
      await s.stop();
    }
    await this.producer.disconnect();
    await this.issuer.close();
  }
}

/** Asserts a body matches a contract schema (every field, right types), naming the violations when not. */
export function expectShape(schema: JsonSchema, body: unknown): void {
  const result = bodyValidator(schema)(structuredClone(body));
  if (!result.ok) throw new Error(`response breaks the contract: ${JSON.stringify(result.errors)}`);
}

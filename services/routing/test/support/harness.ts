import { newEvent } from '@cc/bus';
import { loadConfig } from '@cc/kit';
import {
  CapturedLogs,
  freshName,
  type GatewayProcess,
  startGatewayProcess,
  startTestIssuer,
  type TestIssuer,
  testInfra,
  topicOffsets,
} from '@cc/testing';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import mongoose from 'mongoose';
import { configSpec } from '../../src/config';
import { type RoutingService, startService } from '../../src/service';

/** A CloudEvent as read back from Kafka. */
export interface ReadEvent {
  id: string;
  type: string;
  time: string;
  subject: string;
  accountid: string;
  // biome-ignore lint/suspicious/noExplicitAny: test reads
  data: any;
}

/** Reads the events of one account from topics, starting at the topics' current end (no history). */
export class EventCollector {
  readonly events: ReadEvent[] = [];
  private constructor(private readonly consumer: Consumer) {}

  static async start(brokers: string[], topics: string[], accountIds: () => Set<string>): Promise<EventCollector> {
    const kafka = new Kafka({ brokers, clientId: 'routing-test-reader', logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const ends = new Map<string, { partition: number; offset: string }[]>();
    // On a fresh broker the topics do not exist until a service creates them; subscribing first fails.
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length) {
      await admin
        .createTopics({ topics: missing.map((topic) => ({ topic, numPartitions: 6 })), waitForLeaders: true })
        .catch(() => undefined);
    }
    for (const topic of topics) {
      const offsets = await topicOffsets(admin, topic).catch(() => []);
      ends.set(
        topic,
        offsets.map((o) => ({ partition: o.partition, offset: o.high })),
      );
    }
    await admin.disconnect();
    const consumer = kafka.consumer({ groupId: freshName('routing_test_reader'), maxWaitTimeInMs: 100 });
    await consumer.connect();
    for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true });
    const collector = new EventCollector(consumer);
    await consumer.run({
      eachMessage: async ({ message }) => {
        const event = JSON.parse(message.value?.toString('utf8') ?? 'null') as ReadEvent;
        if (event && accountIds().has(event.accountid)) collector.events.push(event);
      },
    });
    for (const [topic, offsets] of ends)
      for (const o of offsets) consumer.seek({ topic, partition: o.partition, offset: o.offset });
    return collector;
  }

  /**
   * The events about one subject (interaction or agent), in Kafka order, each once: delivery is at
   * least once (an eager publish and a relay pass may both send an event), consumers dedupe by id.
   */
  of(subject: string): ReadEvent[] {
    const seen = new Set<string>();
    return this.events.filter((e) => e.subject === subject && !seen.has(e.id) && seen.add(e.id));
  }

  /** Every event once (deduplicated by id), in Kafka order. */
  unique(): ReadEvent[] {
    const seen = new Set<string>();
    return this.events.filter((e) => !seen.has(e.id) && seen.add(e.id));
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}

/** Everything a routing integration test needs: infra, token issuer, one or more started services. */
export class Harness {
  issuer!: TestIssuer;
  brokers!: string[];
  mongoUrl!: string;
  readonly db = freshName('cc_routing_test');
  readonly group = freshName('routing_test');
  readonly services: RoutingService[] = [];
  readonly gateways: GatewayProcess[] = [];
  readonly accounts = new Set<string>();
  readonly logs = new CapturedLogs();
  collector?: EventCollector;
  private producerKafka?: Kafka;

  async setup(): Promise<this> {
    const infra = await testInfra();
    this.brokers = infra.kafkaBrokers;
    this.mongoUrl = infra.mongoUrl;
    this.issuer = await startTestIssuer();
    await this.startGroupAtEnd(this.group, 'cc.provider.v1');
    this.collector = await EventCollector.start(
      this.brokers,
      ['cc.interaction.v1', 'cc.agent-activity.v1'],
      () => this.accounts,
    );
    return this;
  }

  /**
   * Commits the consumer group's offsets at the topic's current end, so the service reads only events
   * produced from now on (not the whole history other test suites left on the shared broker), without
   * racing the group join.
   */
  private async startGroupAtEnd(groupId: string, topic: string): Promise<void> {
    const kafka = new Kafka({ brokers: this.brokers, clientId: 'routing-test-admin', logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      if (!(await admin.listTopics()).includes(topic)) {
        await admin
          .createTopics({ topics: [{ topic, numPartitions: 6 }], waitForLeaders: true })
          .catch(() => undefined);
      }
      const offsets = await topicOffsets(admin, topic);
      await admin.setOffsets({
        groupId,
        topic,
        partitions: offsets.map((o) => ({ partition: o.partition, offset: o.high })),
      });
    } finally {
      await admin.disconnect();
    }
  }

  /** The routing environment of a test instance (fresh database, fresh consumer group). */
  env(overrides: Record<string, string> = {}): Record<string, string> {
    return {
      PORT: '8081',
      LOG_LEVEL: 'warn',
      KAFKA_BROKERS: this.brokers.join(','),
      MONGO_URL: this.mongoUrl,
      MONGO_DB: this.db,
      KAFKA_GROUP_ID: this.group,
      ENGINE_PASS_GAP_MS: '100',
      ...this.issuer.env,
      ...overrides,
    };
  }

  /** Starts one in-process routing instance with its own store connection and pool. */
  async start(overrides: Record<string, string> = {}): Promise<RoutingService> {
    const config = loadConfig(configSpec, this.env(overrides), (problems) => {
      throw new Error(problems.join('; '));
    });
    // envalid refuses port 0; tests listen on any free port.
    const svc = await startService({ ...config, PORT: 0 }, { exitOnShutdown: false, logDestination: this.logs });
    this.services.push(svc);
    return svc;
  }

  /**
   * The public URL of an instance: a real gateway process in front of it (proxy, scope checks, rate
   * limits, problem answers), checking the test issuer's tokens as an external OIDC issuer's, so tests
   * take the path clients take.
   */
  async publicUrl(svc: RoutingService): Promise<string> {
    const gateway = await startGatewayProcess({ ROUTING: svc.url() }, this.issuer.env);
    this.gateways.push(gateway);
    return gateway.url;
  }

  /** A fresh account id (events of it are collected). */
  account(): string {
    const id = freshName('acct').replace(/_/g, '-').toLowerCase();
    this.accounts.add(id);
    return id;
  }

  token(accountId: string, scope: string, agentId?: string): Promise<string> {
    return this.issuer.token({ accountId, scopes: scope, ...(agentId ? { agentId } : {}) });
  }

  /** Registers a provider the way the provider registry does: a provider.registered event on cc.provider.v1. */
  async registerProvider(
    accountId: string,
    name: string,
    permitted: Record<string, 0 | 1>,
    type: 'provider.registered' | 'provider.updated' | 'provider.deleted' = 'provider.registered',
    version = 1,
  ): Promise<void> {
    this.producerKafka ??= new Kafka({
      brokers: this.brokers,
      clientId: 'routing-test-provider',
      logLevel: logLevel.NOTHING,
    });
    const hold = permitted.hold === 1;
    const data =
      type === 'provider.deleted'
        ? { provider: name, version, occurredAt: new Date().toISOString() }
        : {
            provider: name,
            endpoint: null,
            headerNames: [],
            agentactionspermitted: permitted,
            permissions: {
              release: permitted.release !== 0,
              hold,
              retrieve: hold,
              transferToAgent: permitted.transferToAgent === 1,
              transferToRoute: permitted.transferToRoute === 1,
            },
            sealed: {
              kid: 'k1',
              alg: 'A256GCM',
              iv: 'AAAAAAAAAAAAAAAA',
              ciphertext: 'AAAA',
              tag: 'AAAAAAAAAAAAAAAAAAAAAA',
            },
            version,
            occurredAt: new Date().toISOString(),
            ...(type === 'provider.updated' ? { reason: 're-registered' } : {}),
          };
    const event = newEvent({ source: '/cc/provider-registry', type, subject: name, accountId, data });
    const producer = this.producerKafka.producer();
    await producer.connect();
    await producer.send({
      topic: 'cc.provider.v1',
      messages: [{ key: `${accountId}:${name}`, value: JSON.stringify(event) }],
    });
    await producer.disconnect();
  }

  /** Direct read access to routing's database (white-box checks). */
  async withDb<T>(fn: (db: NonNullable<mongoose.Connection['db']>) => Promise<T>): Promise<T> {
    const conn = await mongoose.createConnection(this.mongoUrl, { dbName: this.db }).asPromise();
    try {
      return await fn(conn.db as NonNullable<mongoose.Connection['db']>);
    } finally {
      await conn.close();
    }
  }

  async teardown(): Promise<void> {
    for (const gateway of this.gateways) await gateway.stop().catch(() => undefined);
    for (const svc of this.services) await svc.stop().catch(() => undefined);
    await this.collector?.stop().catch(() => undefined);
    await this.issuer?.close();
  }
}

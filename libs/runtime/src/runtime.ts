import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ConsumerOptions,
  createKafka,
  EventProducer,
  EventSchemas,
  ensureTopics,
  kafkaReadiness,
  kafkaSecurity,
  mongoDeduper,
  OutboxRelay,
  processedEventsModel,
  startConsumer,
} from '@cc/bus';
import {
  answerClientErrors,
  createHttpApp,
  createLogger,
  createMetrics,
  flushTracing,
  handleShutdown,
  initTracing,
  type Logger,
  type Metrics,
  Readiness,
  type ShutdownStep,
} from '@cc/kit';
import { connectStore, crossAccount, ExpiryJob, ensureIndexes, storeReadiness } from '@cc/store';
import type { Express } from 'express';
import type { Consumer, Kafka } from 'kafkajs';
import type { Connection, Model, mongo } from 'mongoose';

// biome-ignore lint/suspicious/noExplicitAny: a service's models differ in their document types
type AnyModel = Model<any>;

/** The settings every service has (see `baseConfigSpec`). */
export interface RuntimeConfig {
  PORT: number;
  /** Bind address (default all interfaces). */
  HOST?: string;
  /** Reverse proxies whose forwarding headers are believed (default none). */
  TRUST_PROXY?: string;
  LOG_LEVEL: string;
  KAFKA_BROKERS: string;
  KAFKA_TOPIC_PARTITIONS: number;
  /** TLS and SASL (see `kafkaSecurityConfigSpec`); absent means PLAINTEXT. */
  KAFKA_SSL?: boolean;
  KAFKA_SSL_CA_FILE?: string;
  KAFKA_SSL_CERT_FILE?: string;
  KAFKA_SSL_KEY_FILE?: string;
  KAFKA_SASL_MECHANISM?: string;
  KAFKA_SASL_USERNAME?: string;
  KAFKA_SASL_PASSWORD?: string;
  MONGO_URL: string;
  MONGO_DB: string;
  BODY_LIMIT: string;
  SHUTDOWN_DEADLINE_MS: number;
  /** Outbox safety sweep (default 30 s). */
  OUTBOX_SWEEP_MS?: number;
  /** Dedupe memory of consumed events (default 168 h). */
  PROCESSED_EVENTS_RETENTION_HOURS?: number;
  /** Period of the bookkeeping expiry job (default 1 h). */
  EXPIRY_INTERVAL_MS?: number;
}

/** A started service's shared plumbing, handed to its composition root. */
export interface Runtime {
  name: string;
  logger: Logger;
  metrics: Metrics;
  readiness: Readiness;
  conn: Connection;
  kafka: Kafka;
  schemas: EventSchemas;
  producer: EventProducer;
  /** The periodic bounded delete of expired bookkeeping; services add their own tasks. */
  expiry: ExpiryJob;
  /** Creates the given topics (and nothing else) if missing. */
  ensureTopics(topics: string[]): Promise<void>;
  /** Creates the models' indexes and starts an outbox relay over those that carry an `outbox`. */
  useModels(models: AnyModel[], outboxModels?: AnyModel[]): Promise<OutboxRelay>;
  /** Starts a consumer group with the store-backed deduper and registers it for shutdown. */
  consume(opts: Pick<ConsumerOptions, 'groupId' | 'topics' | 'handler'> & Partial<ConsumerOptions>): Promise<Consumer>;
  /** Builds the HTTP app, listens (port 0: any free port), and installs graceful shutdown. */
  listen(routes: (app: Express) => void): Promise<Server>;
  /**
   * Runs an extra step at shutdown (steps in the order registered), after the consumers stop and before the
   * outbox relays, the producer and the store close.
   */
  onShutdown(name: string, run: () => Promise<void>): void;
  /** The base URL the service listens on (after {@link Runtime.listen}). */
  url(): string;
  /** Graceful shutdown as on SIGTERM (the process exits only if `exitOnShutdown`). */
  stop(): Promise<void>;
}

/**
 * Connects a service to its store and to Kafka (failing readiness, not the process, while either is
 * down after start) and orders shutdown: HTTP, consumers, the service's own steps, relays, producer, store.
 */
export async function startRuntime(opts: {
  name: string;
  config: RuntimeConfig;
  logDestination?: NodeJS.WritableStream;
  /** Exit the process when shutdown completes (default true; tests pass false). */
  exitOnShutdown?: boolean;
}): Promise<Runtime> {
  const { config, name } = opts;
  initTracing({ serviceName: name }); // once per process; exports only when OTEL_* ask for it
  const logger = createLogger(name, config.LOG_LEVEL, opts.logDestination);
  const metrics = createMetrics(name);
  const readiness = new Readiness();
  const consumers: Consumer[] = [];
  const relays: OutboxRelay[] = [];

  const conn = await connectStore({ url: config.MONGO_URL, dbName: config.MONGO_DB, logger, metrics });
  readiness.add('store', storeReadiness(conn));
  const security = kafkaSecurity({
    KAFKA_SSL: config.KAFKA_SSL ?? false,
    KAFKA_SSL_CA_FILE: config.KAFKA_SSL_CA_FILE ?? '',
    KAFKA_SSL_CERT_FILE: config.KAFKA_SSL_CERT_FILE ?? '',
    KAFKA_SSL_KEY_FILE: config.KAFKA_SSL_KEY_FILE ?? '',
    KAFKA_SASL_MECHANISM: config.KAFKA_SASL_MECHANISM ?? '',
    KAFKA_SASL_USERNAME: config.KAFKA_SASL_USERNAME ?? '',
    KAFKA_SASL_PASSWORD: config.KAFKA_SASL_PASSWORD ?? '',
  });
  const kafka = createKafka({ brokers: config.KAFKA_BROKERS.split(','), clientId: name, logger, security });
  readiness.add('kafka', kafkaReadiness(kafka));
  // The AsyncAPI document of @cc/contracts is what producers and consumers validate with.
  const schemas = new EventSchemas();
  const producer = new EventProducer(kafka, schemas, logger, metrics);
  await producer.connect();

  const topicsReady = (topics: string[]) =>
    ensureTopics(
      kafka,
      topics.map((topic) => ({ topic, numPartitions: config.KAFKA_TOPIC_PARTITIONS, replicationFactor: -1 })),
    );

  // Consumed event ids expire by their `at` (indexed): the store has no TTL indexes.
  const expiry = new ExpiryJob(
    [
      {
        name: 'processed_events',
        collection: crossAccount<mongo.Document>(processedEventsModel(conn), 'retention of consumed event ids'),
        field: 'at',
        cutoff: () => new Date(Date.now() - (config.PROCESSED_EVENTS_RETENTION_HOURS ?? 168) * 3_600_000),
      },
    ],
    { intervalMs: config.EXPIRY_INTERVAL_MS ?? 3_600_000, logger: logger.child({ component: 'expiry' }) },
  );

  // The relays' step is where a service's own steps go (see onShutdown).
  const relayStep: ShutdownStep = {
    name: 'outbox relay',
    run: async () => void (await Promise.all(relays.map((r) => r.stop()))),
  };
  const steps: ShutdownStep[] = [
    { name: 'consumers', run: async () => void (await Promise.all(consumers.map((c) => c.disconnect()))) },
    relayStep,
    { name: 'expiry', run: () => expiry.stop() },
    { name: 'producer', run: () => producer.disconnect() },
    { name: 'store', run: () => conn.close() },
    { name: 'traces', run: () => flushTracing() },
  ];
  let server: Server | undefined;
  let shutdown: ((reason: string) => Promise<void>) | undefined;

  return {
    name,
    logger,
    metrics,
    readiness,
    conn,
    kafka,
    schemas,
    producer,
    expiry,
    ensureTopics: topicsReady,
    async useModels(models, outboxModels = []) {
      await ensureIndexes(models);
      const relay = new OutboxRelay({
        models: outboxModels,
        producer,
        logger: logger.child({ component: 'outbox' }),
        metrics,
        ...(config.OUTBOX_SWEEP_MS !== undefined ? { sweepMs: config.OUTBOX_SWEEP_MS } : {}),
      });
      if (outboxModels.length) relay.start();
      relays.push(relay);
      return relay;
    },
    async consume(c) {
      const dlq = c.deadLetterTopic ?? `${c.groupId}.dlq`;
      await topicsReady([...c.topics, dlq]);
      if (!consumers.length) await ensureIndexes([processedEventsModel(conn)]); // `at`, for expiry
      const deduper = mongoDeduper(conn, c.groupId);
      // Writes still running at shutdown get 40 % of its deadline to land; the rest is for the steps after.
      const drainTimeoutMs = Math.floor(config.SHUTDOWN_DEADLINE_MS * 0.4);
      const consumer = await startConsumer({
        kafka,
        schemas,
        producer,
        logger,
        metrics,
        deduper,
        drainTimeoutMs,
        ...c,
      });
      consumers.push(consumer);
      return consumer;
    },
    async listen(routes) {
      const app = createHttpApp({
        logger,
        metrics,
        readiness,
        bodyLimit: config.BODY_LIMIT,
        routes,
        ...(config.TRUST_PROXY ? { trustProxy: config.TRUST_PROXY } : {}),
      });
      const listening = await new Promise<Server>((resolve, reject) => {
        const s = app.listen(config.PORT, config.HOST || '0.0.0.0', () => resolve(s));
        s.once('error', reject);
      });
      answerClientErrors(listening);
      listening.keepAliveTimeout = 65_000; // longer than typical proxy idle timeouts
      server = listening;
      expiry.start();
      shutdown = handleShutdown({
        logger,
        readiness,
        server: listening,
        steps,
        deadlineMs: config.SHUTDOWN_DEADLINE_MS,
        ...(opts.exitOnShutdown === false ? { exit: () => undefined, signals: false } : {}),
      });
      const address = listening.address() as AddressInfo;
      logger.info({ host: address.address, port: address.port }, `${name} listening`);
      return listening;
    },
    onShutdown(stepName, run) {
      // After the consumers (no new input) and the steps registered before it, while the relays, the producer
      // and the store still work: a step that drains work (a pipeline writing outcomes, an engine's pass) may
      // still write and publish. (It used to run after the producer had disconnected.)
      steps.splice(steps.indexOf(relayStep), 0, { name: stepName, run });
    },
    url() {
      if (!server) throw new Error('not listening');
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async stop() {
      if (shutdown) return shutdown('stop');
      for (const step of steps) await step.run();
    },
  };
}

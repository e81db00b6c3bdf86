import { randomBytes } from 'node:crypto';

/** Where the tests' real Kafka broker and MongoDB-wire store are. */
export interface TestInfra {
  kafkaBrokers: string[];
  mongoUrl: string;
}

const howTo = [
  'No Kafka broker or MongoDB server for the tests.',
  'Start the local stack with `./cc stack start` (real Kafka from Maven jars and FerretDB, no Docker needed),',
  'or set KAFKA_BROKERS and MONGO_URL to servers of your own, or run a Docker engine (testcontainers starts apache/kafka and mongo:7).',
].join(' ');

let started: Promise<TestInfra> | undefined;

/**
 * Resolves the real infrastructure: KAFKA_BROKERS / MONGO_URL when set; else testcontainers
 * when a Docker engine answers; else fails with how to start the local stack.
 */
export function testInfra(env: NodeJS.ProcessEnv = process.env): Promise<TestInfra> {
  started ??= resolve(env);
  return started;
}

async function resolve(env: NodeJS.ProcessEnv): Promise<TestInfra> {
  if (env.KAFKA_BROKERS && env.MONGO_URL) {
    return { kafkaBrokers: env.KAFKA_BROKERS.split(','), mongoUrl: env.MONGO_URL };
  }
  const tc = await import('testcontainers');
  try {
    await tc.getContainerRuntimeClient();
  } catch {
    throw new Error(howTo);
  }
  const { GenericContainer, Wait } = tc;
  const kafkaBrokers = env.KAFKA_BROKERS
    ? env.KAFKA_BROKERS.split(',')
    : [await startKafkaContainer(GenericContainer, Wait)];
  let mongoUrl = env.MONGO_URL;
  if (!mongoUrl) {
    const mongo = await new GenericContainer('mongo:7')
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forListeningPorts())
      .start();
    mongoUrl = `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}`;
  }
  return { kafkaBrokers, mongoUrl };
}

async function startKafkaContainer(
  GenericContainer: typeof import('testcontainers').GenericContainer,
  Wait: typeof import('testcontainers').Wait,
): Promise<string> {
  // apache/kafka single KRaft node; the external listener is advertised on a fixed host port.
  const hostPort = 19092 + Math.floor(Math.random() * 1000);
  const container = await new GenericContainer('apache/kafka:4.1.1')
    .withExposedPorts({ container: 19092, host: hostPort })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://:9092,CONTROLLER://:9093,EXTERNAL://:19092',
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://localhost:9092,EXTERNAL://localhost:${hostPort}`,
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,EXTERNAL:PLAINTEXT',
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .start();
  return `${container.getHost()}:${hostPort}`;
}

/** A name no other test file uses (databases, topics, consumer groups). */
export function freshName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

/**
 * Drops a database a test or benchmark created, so runs against a long-lived local store do not pile up
 * data (a routing bench run leaves 100,000 interactions). Failing to drop, or taking longer than
 * `timeoutMs`, is reported, never thrown.
 */
export async function dropDatabase(mongoUrl: string, name: string, timeoutMs = 15_000): Promise<void> {
  const { default: mongoose } = await import('mongoose');
  const conn = mongoose.createConnection(mongoUrl, { dbName: name, serverSelectionTimeoutMS: 5_000 });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      conn.asPromise().then(() => conn.dropDatabase()),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (err) {
    process.stderr.write(`could not drop database ${name}: ${(err as Error).message}\n`);
  } finally {
    clearTimeout(timer);
    await conn.close(true).catch(() => undefined);
  }
}

import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { type Logger, retry, retryPolicies } from '@cc/kit';
import { type ITopicConfig, Kafka, type KafkaConfig, logLevel, type SASLOptions } from 'kafkajs';

/** The Kafka security settings of a service's config (`kafkaSecurityConfigSpec` in @cc/kit). */
export interface KafkaSecuritySettings {
  KAFKA_SSL: boolean;
  KAFKA_SSL_CA_FILE: string;
  KAFKA_SSL_CERT_FILE: string;
  KAFKA_SSL_KEY_FILE: string;
  KAFKA_SASL_MECHANISM: string;
  KAFKA_SASL_USERNAME: string;
  KAFKA_SASL_PASSWORD: string;
}

/** kafkajs's TLS and SASL options. */
export type KafkaSecurity = Pick<KafkaConfig, 'ssl' | 'sasl'>;

/**
 * Turns the settings into kafkajs options, reading the PEM files once; throws naming the setting when they are
 * inconsistent (SASL without credentials, a certificate without its key) or a file cannot be read.
 */
export function kafkaSecurity(
  s: KafkaSecuritySettings,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): KafkaSecurity {
  const problems: string[] = [];
  const pem = (key: 'KAFKA_SSL_CA_FILE' | 'KAFKA_SSL_CERT_FILE' | 'KAFKA_SSL_KEY_FILE'): string | undefined => {
    if (!s[key]) return undefined;
    try {
      return readFile(s[key]);
    } catch (err) {
      problems.push(`${key}: cannot read ${s[key]} (${(err as Error).message})`);
      return undefined;
    }
  };
  let ssl: ConnectionOptions | boolean = false;
  if (s.KAFKA_SSL) {
    const ca = pem('KAFKA_SSL_CA_FILE');
    const cert = pem('KAFKA_SSL_CERT_FILE');
    const key = pem('KAFKA_SSL_KEY_FILE');
    if (!!s.KAFKA_SSL_CERT_FILE !== !!s.KAFKA_SSL_KEY_FILE)
      problems.push('KAFKA_SSL_CERT_FILE / KAFKA_SSL_KEY_FILE: give both or neither');
    const options: ConnectionOptions = { ...(ca ? { ca } : {}), ...(cert && key ? { cert, key } : {}) };
    ssl = Object.keys(options).length ? options : true;
  } else if (s.KAFKA_SSL_CA_FILE || s.KAFKA_SSL_CERT_FILE || s.KAFKA_SSL_KEY_FILE) {
    problems.push('KAFKA_SSL_*_FILE: set KAFKA_SSL=true to use them');
  }
  let sasl: SASLOptions | undefined;
  if (s.KAFKA_SASL_MECHANISM) {
    if (!s.KAFKA_SASL_USERNAME) problems.push('KAFKA_SASL_USERNAME: required with KAFKA_SASL_MECHANISM');
    if (!s.KAFKA_SASL_PASSWORD) problems.push('KAFKA_SASL_PASSWORD: required with KAFKA_SASL_MECHANISM');
    sasl = {
      mechanism: s.KAFKA_SASL_MECHANISM as 'plain' | 'scram-sha-256' | 'scram-sha-512',
      username: s.KAFKA_SASL_USERNAME,
      password: s.KAFKA_SASL_PASSWORD,
    } as SASLOptions;
  }
  if (problems.length) throw new Error(`invalid Kafka security settings: ${problems.join('; ')}`);
  return { ssl, ...(sasl ? { sasl } : {}) };
}

/** Creates a kafkajs client whose logs go to the service's pino logger (TLS/SASL from `security`). */
export function createKafka(opts: {
  brokers: string[];
  clientId: string;
  logger: Logger;
  security?: KafkaSecurity;
}): Kafka {
  const log = opts.logger.child({ component: 'kafka' });
  return new Kafka({
    ...opts.security,
    clientId: opts.clientId,
    brokers: opts.brokers,
    connectionTimeout: 3000,
    requestTimeout: 30000,
    retry: { initialRetryTime: 300, retries: 10, maxRetryTime: 10000 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log: entry }) => {
        const { message, ...rest } = entry;
        const fields = { ...rest, namespace: entry.namespace };
        if (level <= logLevel.ERROR) log.error(fields, message);
        else if (level === logLevel.WARN) log.warn(fields, message);
        else log.debug(fields, message);
      },
  });
}

/**
 * Creates missing topics with the configured partition count (existing ones are left as they are).
 * Several services may create the same topic at once: "already exists" and leader-election errors
 * are retried until every topic has leaders.
 */
export async function ensureTopics(kafka: Kafka, topics: ITopicConfig[], attempts = 10): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await retry(
      async () => {
        const existing = new Set(await admin.listTopics());
        const missing = topics.filter((t) => !existing.has(t.topic));
        if (missing.length) await admin.createTopics({ topics: missing, waitForLeaders: true });
        await admin.fetchTopicMetadata({ topics: topics.map((t) => t.topic) });
      },
      { policy: { ...retryPolicies.topics, retries: attempts - 1 }, what: 'topic creation' },
    );
  } finally {
    await admin.disconnect();
  }
}

/** A readiness check: the cluster answers a metadata request. */
export function kafkaReadiness(kafka: Kafka): () => Promise<void> {
  const admin = kafka.admin({ retry: { retries: 0 } });
  let connected = false;
  return async () => {
    if (!connected) {
      await admin.connect();
      connected = true;
    }
    try {
      await admin.describeCluster();
    } catch (err) {
      connected = false;
      await admin.disconnect().catch(() => undefined);
      throw err;
    }
  };
}

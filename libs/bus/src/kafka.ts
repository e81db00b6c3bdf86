import type { Logger } from '@cc/kit';
import { type ITopicConfig, Kafka, logLevel } from 'kafkajs';

/** Creates a kafkajs client whose logs go to the service's pino logger. */
export function createKafka(opts: { brokers: string[]; clientId: string; logger: Logger }): Kafka {
  const log = opts.logger.child({ component: 'kafka' });
  return new Kafka({
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
    for (let attempt = 1; ; attempt++) {
      try {
        const existing = new Set(await admin.listTopics());
        const missing = topics.filter((t) => !existing.has(t.topic));
        if (missing.length) await admin.createTopics({ topics: missing, waitForLeaders: true });
        await admin.fetchTopicMetadata({ topics: topics.map((t) => t.topic) });
        return;
      } catch (err) {
        if (attempt >= attempts) throw err;
        await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 3000)));
      }
    }
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

/**
 * Moves the consumer groups of one local instance (`CC_INSTANCE`) to the end of every suite topic, so a suite
 * started beside others on a broker with a long history (tests, other suites) begins from now instead of
 * replaying it. Run while that instance's services are stopped (a group with members cannot be moved).
 * Usage: tsx deploy/local/skip-history.ts <instance>
 */
import { Kafka, logLevel } from 'kafkajs';
import { services } from './services';

async function main(): Promise<void> {
  const instance = process.argv[2];
  if (!instance) throw new Error('usage: skip-history.ts <instance>');
  const brokers = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',');
  const admin = new Kafka({ brokers, clientId: 'skip-history', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const groups = services.map((s) => `cc-${instance}.${s.name}`);
    const topics = (await admin.listTopics()).filter((t) => t.startsWith('cc.') && !t.endsWith('.dlq'));
    for (const topic of topics) {
      const partitions = (await admin.fetchTopicOffsets(topic)).map((o) => ({
        partition: o.partition,
        offset: o.high,
      }));
      for (const groupId of groups) await admin.setOffsets({ groupId, topic, partitions });
    }
    process.stdout.write(`[skip-history] cc-${instance}.* start at the end of ${topics.length} topics\n`);
  } finally {
    await admin.disconnect();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`[skip-history] ${err.message}\n`);
  process.exit(1);
});

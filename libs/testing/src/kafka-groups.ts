import { Kafka, logLevel } from 'kafkajs';

/**
 * Commits `groups`' offsets at the end of every suite topic (`cc.*`, not the dead-letter topics), so consumers
 * started beside a broker with a long history (tests, other suites) begin from now instead of replaying it.
 * Run while those groups have no members (a group with members cannot be moved). Returns the topics moved.
 */
export async function skipTopicHistory(
  brokers: string[],
  groups: readonly string[],
  clientId: string,
): Promise<number> {
  const admin = new Kafka({ brokers, clientId, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith('cc.') && !t.endsWith('.dlq'));
    for (const topic of topics) {
      const partitions = (await admin.fetchTopicOffsets(topic)).map((o) => ({
        partition: o.partition,
        offset: o.high,
      }));
      for (const groupId of groups) await admin.setOffsets({ groupId, topic, partitions });
    }
    return topics.length;
  } finally {
    await admin.disconnect();
  }
}

import { createKafka } from '@cc/bus';
import { createLogger } from '@cc/kit';

/**
 * Commits the end of every suite topic (`cc.<name>.v<n>`) for fresh consumer groups before their services
 * start: on a shared broker the topics hold every earlier run's events, which a new group would otherwise
 * read from the beginning before reaching this test's own.
 */
export async function startGroupsAtEnd(brokers: string, groups: string[]): Promise<void> {
  const kafka = createKafka({
    brokers: brokers.split(','),
    clientId: 'deploy-test',
    logger: createLogger('deploy-test', 'silent'),
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => /^cc\.[a-z-]+\.v\d+$/.test(t));
    for (const topic of topics) {
      const offsets = await admin.fetchTopicOffsets(topic);
      for (const groupId of groups) {
        await admin.setOffsets({
          groupId,
          topic,
          partitions: offsets.map((o) => ({ partition: o.partition, offset: o.high })),
        });
      }
    }
  } finally {
    await admin.disconnect();
  }
}

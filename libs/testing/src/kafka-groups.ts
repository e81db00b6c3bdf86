import { retry, retryPolicies } from '@cc/kit';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import { eventually } from './poll';

/**
 * A topic's partition offsets, asked again while the broker answers with a retriable error: a broker just started, or
 * a topic just created, may not have settled its partition leaders yet ("not the leader for that topic-partition").
 */
export function topicOffsets(admin: Admin, topic: string): ReturnType<Admin['fetchTopicOffsets']> {
  return retry(() => admin.fetchTopicOffsets(topic), {
    policy: retryPolicies.topics,
    what: `offsets of ${topic}`,
    retryable: (err) => (err as { retriable?: boolean }).retriable === true,
  });
}

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
      const partitions = (await topicOffsets(admin, topic)).map((o) => ({
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

/**
 * Waits until `groupId` has committed, on every partition of `topic`, at least the offsets the topic ended at when
 * this was called: every event published before then has been handled (a consumer commits only what it handled).
 * The check for a test that expects an event to have no effect: a counter of handled events cannot tell, when other
 * events share the topic.
 */
export async function committedThrough(
  admin: Admin,
  groupId: string,
  topic: string,
  timeoutMs = 30_000,
): Promise<void> {
  const ends = (await topicOffsets(admin, topic)).map((o) => ({ partition: o.partition, end: BigInt(o.high) }));
  await eventually(
    async () => {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      const at = new Map((committed?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
      // Plain values: the timeout's message shows the last answer as JSON.
      return ends
        .filter(({ partition, end }) => (at.get(partition) ?? -1n) < end)
        .map(({ partition, end }) => ({ partition, committed: String(at.get(partition) ?? 'none'), end: String(end) }));
    },
    {
      timeoutMs,
      intervalMs: 200,
      accept: (behind) => behind.length === 0,
      what: `${groupId} to commit ${topic} through its end`,
    },
  );
}

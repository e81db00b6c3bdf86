import { hostname } from 'node:os';
import type { Logger } from '@cc/kit';
import type { Consumer, Kafka } from 'kafkajs';
import type { EventStreamHub } from './event-stream.hub';

/** The topics the live event stream carries (libs/contracts AsyncAPI): what an operator watches. */
export const streamedTopics = [
  'cc.interaction.v1',
  'cc.agent-activity.v1',
  'cc.notification-delivery.v1',
  'cc.analysis.v1',
] as const;

/** The consumer group of one gateway instance: its own, so every instance sees every event. */
export function streamGroupId(prefix: string): string {
  return `${prefix}.event-stream.${hostname()}.${process.pid}.${Math.random().toString(36).slice(2, 8)}`;
}

/** The stream's consumer, and whether it has joined its group (events before that are not seen). */
export interface EventStreamConsumer {
  consumer: Consumer;
  joined(): boolean;
}

/**
 * One Kafka consumer per gateway instance, in a group of its own, from the latest offsets and committing nothing
 * (a restarted instance starts from "now" again: the resume window is in memory). Each envelope goes to the hub,
 * which fans it out to its account's streams; a message without an account, type or id is skipped and counted.
 */
export async function startEventStreamConsumer(opts: {
  kafka: Kafka;
  groupId: string;
  hub: EventStreamHub;
  logger: Logger;
}): Promise<EventStreamConsumer> {
  const log = opts.logger.child({ component: 'event-stream', group: opts.groupId });
  const consumer = opts.kafka.consumer({ groupId: opts.groupId, sessionTimeout: 10_000, heartbeatInterval: 1_000 });
  let joined = false;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    joined = true;
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [...streamedTopics], fromBeginning: false });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic, partition, message }) => {
      const raw = message.value?.toString('utf8') ?? '';
      let envelope: { accountid?: unknown; type?: unknown; id?: unknown };
      try {
        envelope = JSON.parse(raw) as typeof envelope;
      } catch {
        log.warn({ topic, partition, offset: message.offset }, 'unparseable event skipped by the event stream');
        return;
      }
      if (
        typeof envelope?.accountid !== 'string' ||
        typeof envelope.type !== 'string' ||
        typeof envelope.id !== 'string'
      ) {
        log.warn({ topic, partition, offset: message.offset }, 'event without accountid, type or id skipped');
        return;
      }
      // One SSE data line: the producers' JSON has no raw line breaks, but a hand-written message might.
      const json = /[\r\n]/.test(raw) ? JSON.stringify(envelope) : raw;
      opts.hub.publish({ accountId: envelope.accountid, type: envelope.type, json });
    },
  });
  log.info({ topics: streamedTopics }, 'event stream consumer started (from latest)');
  return { consumer, joined: () => joined };
}

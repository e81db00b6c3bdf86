import { freshName } from '@cc/testing';
import type { Kafka } from 'kafkajs';
import { skipToEnd } from './notifier-harness';

/** One message a {@link TopicRecorder} saw. */
export interface RecordedMessage {
  topic: string;
  value: { id: string; type: string; subject: string; accountid: string; data: Record<string, unknown> };
}

/** Reads topics from their current end (a fresh group moved to the end first) and keeps every message. */
export class TopicRecorder {
  readonly messages: RecordedMessage[] = [];
  private constructor(private readonly stopFn: () => Promise<void>) {}

  static async start(kafka: Kafka, topics: string[]): Promise<TopicRecorder> {
    const groupId = freshName('notifier-test-recorder');
    await skipToEnd(kafka, groupId, topics);
    const consumer = kafka.consumer({ groupId });
    await consumer.connect();
    for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: false });
    const recorder = new TopicRecorder(() => consumer.disconnect());
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        recorder.messages.push({ topic, value: JSON.parse(message.value?.toString('utf8') ?? '{}') });
      },
    });
    return recorder;
  }

  /** Messages of one topic whose data names the delivery. */
  ofDelivery(topic: string, deliveryId: string): RecordedMessage[] {
    return this.messages.filter((m) => m.topic === topic && m.value.data?.deliveryId === deliveryId);
  }

  async stop(): Promise<void> {
    await this.stopFn();
  }
}

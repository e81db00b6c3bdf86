import type { Logger, Metrics } from '@cc/kit';
import { type Kafka, Partitioners, type Producer } from 'kafkajs';
import { type CloudEvent, eventKey } from './envelope';
import type { EventSchemas } from './schemas';

/** Publishes validated CloudEvents; one call sends all its events in one request per topic. */
export class EventProducer {
  private readonly producer: Producer;

  constructor(
    kafka: Kafka,
    private readonly schemas: EventSchemas,
    private readonly logger: Logger,
    private readonly metrics?: Metrics,
  ) {
    // Idempotent producer: retried sends are not duplicated by the broker, and order per partition holds.
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner, // murmur2, as the Java client: keys land where other clients expect
    });
  }

  async connect(): Promise<void> {
    await this.producer.connect();
  }

  async disconnect(): Promise<void> {
    await this.producer.disconnect();
  }

  /** Validates every event first (nothing is sent if one is invalid), then sends them keyed by account and aggregate. */
  async publish(topic: string, events: CloudEvent[], extraHeaders: Record<string, string> = {}): Promise<void> {
    if (events.length === 0) return;
    for (const e of events) this.schemas.assertValid(e);
    await this.producer.send({
      topic,
      acks: -1,
      messages: events.map((e) => ({
        key: eventKey(e),
        value: JSON.stringify(e),
        headers: {
          'content-type': 'application/cloudevents+json; charset=utf-8',
          ...(e.traceparent ? { traceparent: e.traceparent } : {}),
          ...extraHeaders,
        },
      })),
    });
    this.metrics?.producedEvents.inc({ topic }, events.length);
    this.logger.debug({ topic, count: events.length, ids: events.map((e) => e.id) }, 'events published');
  }

  /** Sends raw messages (used for dead-lettering, where the original may not be a valid event). */
  async sendRaw(
    topic: string,
    messages: {
      key: Buffer | string | null;
      value: Buffer | string | null;
      headers: Record<string, string | Buffer>;
    }[],
  ): Promise<void> {
    await this.producer.send({ topic, acks: -1, messages });
  }
}

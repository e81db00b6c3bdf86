import { type Logger, type Metrics, type Span, SpanKind, SpanStatusCode, startSpan, traceparentOf } from '@cc/kit';
import { type Kafka, Partitioners, type Producer } from 'kafkajs';
import { type CloudEvent, eventKey } from './envelope';
import { type EventSchemas, RefusedEventError } from './schemas';

/**
 * Broker error codes that refuse the messages themselves and that kafkajs does not retry: the same event is refused
 * every time (RECORD_LIST_TOO_LARGE is left out: it depends on how many messages one request carried).
 */
const refusedMessageCodes = new Set(['MESSAGE_TOO_LARGE', 'INVALID_RECORD']);

/** The broker's code when `err` (or an error it wraps, as kafkajs's non-retriable error does) is such a refusal. */
function refusedForGood(err: unknown): string | undefined {
  let e = err as { type?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; e && depth < 5; depth++, e = e.cause as typeof e) {
    if (typeof e.type === 'string' && refusedMessageCodes.has(e.type)) return e.type;
  }
  return undefined;
}

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

  /**
   * Throws an InvalidEventError for the first event its schema refuses, sending nothing: for a caller about to
   * publish to several topics one after another, so an invalid event of a later topic does not come after the
   * earlier topics' events were sent (they would be sent again with every retry).
   */
  assertValid(events: Iterable<CloudEvent>): void {
    for (const e of events) this.schemas.assertValid(e);
  }

  /** Validates every event first (nothing is sent if one is invalid), then sends them keyed by account and aggregate. */
  async publish(topic: string, events: CloudEvent[], extraHeaders: Record<string, string> = {}): Promise<void> {
    if (events.length === 0) return;
    for (const e of events) this.schemas.assertValid(e);
    // One producer span per event, child of the event's traceparent (the request or consumer that caused it);
    // its traceparent travels in the Kafka header, where consumers continue the trace.
    const service = String(this.logger.bindings().service ?? 'service');
    const spans = events.map(
      (e) =>
        startSpan(service, `${topic} publish`, {
          kind: SpanKind.PRODUCER,
          parent: e.traceparent ?? null,
          attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': topic, 'cc.event_type': e.type },
        }).span,
    );
    let split = false;
    try {
      await this.producer.send({
        topic,
        acks: -1,
        messages: events.map((e, i) => ({
          key: eventKey(e),
          value: JSON.stringify(e),
          headers: {
            'content-type': 'application/cloudevents+json; charset=utf-8',
            traceparent: traceparentOf(spans[i] as Span),
            ...extraHeaders,
          },
        })),
      });
    } catch (err) {
      for (const s of spans) s.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      const refusal = refusedForGood(err);
      // Several events: the broker judges each partition's batch, which may be too large only together. Sent one
      // at a time, in order, the first one refused on its own is the RefusedEventError.
      if (refusal && events.length > 1) split = true;
      else if (refusal) {
        throw new RefusedEventError(
          `${topic}: the broker refuses the event for good (${refusal}): ${(err as Error).message}`,
          refusal,
        );
      } else throw err;
    } finally {
      for (const s of spans) s.end();
    }
    if (split) {
      const done: string[] = [];
      for (const e of events) {
        try {
          await this.publish(topic, [e], extraHeaders);
        } catch (err) {
          if (err instanceof RefusedEventError) err.published = done;
          throw err;
        }
        done.push(e.id);
      }
      return;
    }
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

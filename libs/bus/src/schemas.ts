import {
  asyncApiCatalog,
  type EventCatalog,
  EventValidator,
  eventCatalog,
  type JsonSchema,
  jsonTextWellFormed,
  type Violation,
} from '@cc/contracts';
import type { CloudEvent } from './envelope';

/** Thrown when an event or its data breaks its contract; never retried, dead-lettered at once. */
export class InvalidEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidEventError';
  }
}

/**
 * The broker refuses the event itself, for good (too large for its topic, say): sending it again changes nothing,
 * so it is never retried as such: the outbox relay sets its entry aside in `outbox_dead_letters` and sends the rest
 * of its document (not counted as a broker failure), and a consumer handler that published it dead-letters its
 * message at once.
 */
export class RefusedEventError extends InvalidEventError {
  constructor(
    message: string,
    /** The broker's error code, e.g. MESSAGE_TOO_LARGE. */
    readonly refusal: string,
    /**
     * Ids of the events the same call (a publish of several, an outbox document's flush) did send before this one
     * was refused, in order: whoever sets the refused one aside need not send them again.
     */
    public published: string[] = [],
  ) {
    super(message);
    this.name = 'RefusedEventError';
  }
}

/** What a consumer does with a message: handle it, skip an unknown type (forward compatibility), or dead-letter it. */
export type ConsumedCheck =
  | { kind: 'valid'; event: CloudEvent }
  | { kind: 'unknown-type'; type: string }
  | { kind: 'invalid'; reason: string };

const describe = (errors: readonly Violation[]): string =>
  errors.map((e) => `${e.pointer || '/'}: ${e.message}`).join('; ');

/**
 * The event contracts producers and consumers validate with: by default the AsyncAPI document of
 * `@cc/contracts` (envelope, data schemas, topics), compiled once by the contracts' strict validator.
 */
export class EventSchemas {
  private readonly validator: EventValidator;

  /**
   * @param dataSchemas event type → JSON Schema of its `data`, for tests and tools with types of their own
   * (still inside the contracts' envelope); omitted, the AsyncAPI document's catalog.
   */
  constructor(dataSchemas?: Record<string, JsonSchema>, topics?: Record<string, readonly string[]>) {
    const catalog: EventCatalog = dataSchemas ? eventCatalog(dataSchemas, topics) : asyncApiCatalog();
    this.validator = new EventValidator(catalog);
  }

  /** Producer side: throws {@link InvalidEventError} naming each violation; an unknown type is invalid too. */
  assertValid(event: unknown): asserts event is CloudEvent {
    const checked = this.validator.check<CloudEvent>(event);
    if (checked.kind === 'unknown-type') throw new InvalidEventError(`unknown event type ${checked.type}`);
    if (checked.kind === 'invalid') {
      const type = (event as { type?: unknown } | null)?.type;
      throw new InvalidEventError(`${typeof type === 'string' ? `${type}: ` : ''}${describe(checked.errors)}`);
    }
  }

  /**
   * Consumer side: the event read from `topic`, an unknown type (to skip), or why it is invalid (to dead-letter).
   * `wellFormed`: parsed from a text `jsonTextWellFormed` passed (the same answers, less work).
   */
  checkConsumed(event: unknown, topic: string, wellFormed?: boolean): ConsumedCheck {
    const checked = this.validator.check<CloudEvent>(event, topic, wellFormed);
    if (checked.kind === 'invalid') return { kind: 'invalid', reason: describe(checked.errors) };
    return checked;
  }

  /**
   * Consumer side, from a message's text: {@link checkConsumed} of the parsed text, or invalid if it is not JSON. The
   * bus consumer reads each message so, and so does a handler that reads messages off its thread (`handleRaw`): both
   * agree on where a batch's valid events stop.
   */
  checkConsumedText(text: string, topic: string): ConsumedCheck {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { kind: 'invalid', reason: `unparseable: ${(err as Error).message}` };
    }
    return this.checkConsumed(value, topic, jsonTextWellFormed(text));
  }
}

import { asyncApiDocument } from './asyncapi';
import type { JsonSchema } from './json-schema';
import { anyCloudEvent, cloudEvent } from './schemas/events/envelope';
import { bodyValidator, type ValidationResult, type Validator, type Violation } from './validation';

/** What an event validator knows: each type's whole-event (CloudEvent) schema and the types each topic carries. */
export interface EventCatalog {
  /** CloudEvent schema (envelope around the data schema) per event type. */
  readonly payloads: Readonly<Record<string, JsonSchema>>;
  /** Event types per topic; a topic not listed may carry any known type. */
  readonly topics: Readonly<Record<string, readonly string[]>>;
}

interface AsyncApiShape {
  channels: Record<string, { address: string; messages: Record<string, { $ref: string }> }>;
  components: { messages: Record<string, { name: string; payload: JsonSchema }> };
}

/**
 * The catalog the AsyncAPI document describes: every message's payload and every topic's messages, read from
 * the document itself, so what subscribing teams read is what producers and consumers run. Channels with a
 * parameterised address (the dead-letter topics, which keep any message as it came) carry no event types.
 */
export function asyncApiCatalog(doc: Record<string, unknown> = asyncApiDocument): EventCatalog {
  const { channels, components } = doc as unknown as AsyncApiShape;
  const payloads: Record<string, JsonSchema> = {};
  const topics: Record<string, string[]> = {};
  for (const channel of Object.values(channels)) {
    if (channel.address.includes('{')) continue;
    const types: string[] = [];
    for (const ref of Object.values(channel.messages)) {
      const message = components.messages[ref.$ref.split('/').pop() as string];
      if (!message) throw new Error(`AsyncAPI: unresolved message ${ref.$ref}`);
      payloads[message.name] = message.payload;
      types.push(message.name);
    }
    topics[channel.address] = types;
  }
  return { payloads, topics };
}

/** A catalog of event types given by their data schemas (tests, tools), wrapped in the contracts' envelope. */
export function eventCatalog(
  dataSchemas: Readonly<Record<string, JsonSchema>>,
  topics: Readonly<Record<string, readonly string[]>> = {},
): EventCatalog {
  return {
    payloads: Object.fromEntries(Object.entries(dataSchemas).map(([type, data]) => [type, cloudEvent(type, data)])),
    topics,
  };
}

/** The outcome of checking one consumed or produced event. */
export type EventCheck<T> =
  | { kind: 'valid'; event: T }
  /** A well-formed event of a type this catalog does not know (a newer producer): skipped, not an error. */
  | { kind: 'unknown-type'; type: string }
  | { kind: 'invalid'; errors: Violation[] };

/**
 * Validates CloudEvents with the contracts' strict (draft 2020-12) validator: the envelope first (any
 * event of the suite), then the type's whole-event schema; every schema compiled once.
 */
export class EventValidator {
  private readonly envelope = bodyValidator<{ type: string }>(anyCloudEvent);
  private readonly byType = new Map<string, Validator<unknown>>();
  private readonly topics: ReadonlyMap<string, ReadonlySet<string>>;

  /** The known types the envelope accepts as a type: their whole-event schema implies the envelope's. */
  private readonly direct = new Set<string>();

  constructor(catalog: EventCatalog = asyncApiCatalog()) {
    for (const [type, payload] of Object.entries(catalog.payloads)) {
      this.byType.set(type, bodyValidator(payload));
      if (type.length <= 100 && /^[a-z-]+\.[a-z-]+$/.test(type)) this.direct.add(type);
    }
    this.topics = new Map(Object.entries(catalog.topics).map(([topic, types]) => [topic, new Set(types)]));
  }

  /** Whether the catalog knows an event type. */
  knows(type: string): boolean {
    return this.byType.has(type);
  }

  /**
   * Checks an event (consumed from `topic`, if given). A known type on a topic that does not carry it is
   * invalid; an unknown type with a valid envelope is reported as such, for the caller to skip or refuse.
   * `wellFormed`: the caller parsed `event` from a text {@link jsonTextWellFormed} passed (same answers, less work).
   */
  check<T>(event: unknown, topic?: string, wellFormed?: boolean): EventCheck<T> {
    // A known type carried on the topic, with object data, valid against its whole-event schema (the envelope's
    // attributes around its data schema) is valid: one validation pass instead of two (the envelope's pass walked
    // and checked the same attributes again: 6.5 → 3.9 µs per agent-activity event). Anything else takes the full path below,
    // whose answers and errors are unchanged.
    const named = event !== null && typeof event === 'object' ? (event as { type?: unknown }).type : undefined;
    if (typeof named === 'string' && this.direct.has(named)) {
      const data = (event as { data?: unknown }).data;
      const carries = topic === undefined ? undefined : this.topics.get(topic);
      if (
        data !== null &&
        typeof data === 'object' &&
        !Array.isArray(data) &&
        (!carries || carries.has(named)) &&
        (this.byType.get(named) as Validator<unknown>)(event, wellFormed).ok
      )
        return { kind: 'valid', event: event as T };
    }
    const envelope = this.envelope(event);
    if (!envelope.ok) return { kind: 'invalid', errors: envelope.errors };
    const { type } = envelope.value;
    const validate = this.byType.get(type);
    if (!validate) return { kind: 'unknown-type', type };
    const carried = topic === undefined ? undefined : this.topics.get(topic);
    if (carried && !carried.has(type))
      return { kind: 'invalid', errors: [{ pointer: '/type', message: `type ${type} is not carried on ${topic}` }] };
    const result = validate(event);
    return result.ok ? { kind: 'valid', event: event as T } : { kind: 'invalid', errors: result.errors };
  }
}

let defaultValidator: EventValidator | undefined;

/** Validates a whole CloudEvent against the AsyncAPI document: the envelope, a known type, then its data. */
export function validateEvent<T>(event: unknown): ValidationResult<T> {
  defaultValidator ??= new EventValidator();
  const checked = defaultValidator.check<T>(event);
  if (checked.kind === 'valid') return { ok: true, value: checked.event };
  if (checked.kind === 'invalid') return { ok: false, errors: checked.errors };
  return { ok: false, errors: [{ pointer: '/type', message: `type ${checked.type} is not a known event type` }] };
}

import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { type CloudEvent, envelopeSchema } from './envelope';

/** Thrown when an event or its data breaks its contract; never retried, dead-lettered at once. */
export class InvalidEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidEventError';
  }
}

/** Compiles each event type's data schema once and validates envelopes and data on produce and consume. */
export class EventSchemas {
  private readonly ajv = new Ajv({ allErrors: true, strict: false });
  private readonly byType = new Map<string, ValidateFunction>();
  private readonly envelope: ValidateFunction;

  /** @param schemas event type → JSON Schema of its `data` (from `@cc/contracts` in services). */
  constructor(schemas: Record<string, object>) {
    addFormats(this.ajv);
    this.envelope = this.ajv.compile(envelopeSchema);
    for (const [type, schema] of Object.entries(schemas)) this.byType.set(type, this.ajv.compile(schema));
  }

  /** Throws {@link InvalidEventError} naming each violation; unknown types are invalid too. */
  assertValid(event: unknown): asserts event is CloudEvent {
    if (!this.envelope(event)) throw new InvalidEventError(`envelope: ${this.ajv.errorsText(this.envelope.errors)}`);
    const e = event as CloudEvent;
    const validate = this.byType.get(e.type);
    if (!validate) throw new InvalidEventError(`unknown event type ${e.type}`);
    if (!validate(e.data))
      throw new InvalidEventError(`${e.type}: ${this.ajv.errorsText(validate.errors, { dataVar: 'data' })}`);
  }
}

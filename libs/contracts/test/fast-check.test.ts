import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { fastCheckOf } from '../src/fast-check';
import { asyncApiCatalog, bodyValidator, eventDataExamples, isEventTime, type JsonSchema } from '../src/index';

// The oracle: ajv with ajv-formats' own date-time, none of this package's shortcuts.
const ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true });
addFormats(ajv);
const catalog = asyncApiCatalog();

const envelope = (type: string, data: unknown) => ({
  specversion: '1.0',
  id: '5f1b6a2e-0a0b-4c1d-9e8f-7a6b5c4d3e2f',
  source: '/cc/routing',
  type,
  time: '2026-11-26T00:04:00.000Z',
  subject: 'abc',
  accountid: 'acme',
  datacontenttype: 'application/json',
  data,
});

const odd: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 60,
  '',
  'x',
  'x'.repeat(300),
  '😀'.repeat(60), // 120 UTF-16 units, 60 code points
  '2024-02-30T08:15:00.000Z',
  '2024-05-01T08:15:00Z',
  '2024-05-01T08:15:00.000+02:00',
  '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4g',
  'Ready',
  'a\u0007b',
  [],
  [1],
  {},
  { guid: 'x' },
];

/** Every way of breaking one value: each leaf (and each member) replaced by odd values or removed. */
function* mutations(value: unknown): Generator<unknown> {
  for (const o of odd) yield o;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      for (const m of mutations(value[i])) yield value.map((x, j) => (j === i ? m : x));
  } else if (value !== null && typeof value === 'object') {
    for (const k of Object.keys(value)) {
      const { [k]: removed, ...rest } = value as Record<string, unknown>;
      yield rest;
      for (const m of mutations(removed)) yield { ...rest, [k]: m };
    }
  }
}

describe('fast checks', () => {
  const types = Object.keys(eventDataExamples) as (keyof typeof eventDataExamples)[];

  it('accept every example event, and only what ajv accepts (each field of each example broken every way)', () => {
    let checked = 0;
    let accepted = 0;
    for (const type of types) {
      const schema = catalog.payloads[type] as JsonSchema;
      const fast = fastCheckOf(schema, isEventTime);
      if (!fast) continue;
      const oracle = ajv.compile(schema as object);
      const example = envelope(type, eventDataExamples[type]);
      expect({ type, ok: fast(example) }).toEqual({ type, ok: true });
      for (const m of mutations(example)) {
        checked++;
        if (fast(m)) {
          accepted++;
          expect({ type, m, ajv: oracle(m) }).toEqual({ type, m, ajv: true });
        }
      }
    }
    // The agent-activity events (the hot ones) all have a fast check; most mutations are refused by it.
    for (const type of types.filter((t) => t.startsWith('agent-activity.')))
      expect(fastCheckOf(catalog.payloads[type] as JsonSchema, isEventTime)).toBeDefined();
    expect(checked).toBeGreaterThan(10_000);
    expect(accepted).toBeLessThan(checked / 2);
  });

  it('leave to ajv what they cannot decide: its verdict stands', () => {
    const schema: JsonSchema = {
      type: 'object',
      required: ['name', 'at'],
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 3 },
        at: { type: 'string', format: 'date-time' },
      },
    };
    const fast = fastCheckOf(schema, isEventTime) as (d: unknown) => boolean;
    const validate = bodyValidator(schema);
    // Within the limits in code points, not in UTF-16 units; a date-time of another shape: ajv accepts both.
    const fine = { name: '😀😀😀', at: '2024-05-01T08:15:00+02:00' };
    expect(fast(fine)).toBe(false);
    expect(validate(fine).ok).toBe(true);
    const short = { name: '😀', at: '2024-05-01T08:15:00.000Z' };
    expect(fast(short)).toBe(false);
    expect(validate(short)).toEqual({ ok: false, errors: [{ pointer: '/name', message: expect.any(String) }] });
  });

  it('are not made for schemas with defaults or keywords they do not mirror (ajv keeps applying and judging those)', () => {
    expect(fastCheckOf({ type: 'object', properties: { n: { type: 'integer', default: 1 } } }, isEventTime)).toBe(
      undefined,
    );
    expect(fastCheckOf({ type: 'object', additionalProperties: false }, isEventTime)).toBe(undefined);
    expect(fastCheckOf({ oneOf: [{ type: 'string' }, { type: 'null' }] }, isEventTime)).toBe(undefined);
    expect(fastCheckOf({ type: 'string', format: 'email' }, isEventTime)).toBe(undefined);
    const validate = bodyValidator<{ n: number }>({
      type: 'object',
      properties: { n: { type: 'integer', default: 1 } },
    });
    expect(validate({})).toEqual({ ok: true, value: { n: 1 } });
  });

  it('still refuse ill-formed Unicode and NUL that the schema itself allows', () => {
    const schema = catalog.payloads['agent-activity.presence-changed'] as JsonSchema;
    const validate = bodyValidator(schema);
    const example = envelope('agent-activity.presence-changed', eventDataExamples['agent-activity.presence-changed']);
    expect(validate(example).ok).toBe(true);
    expect(validate({ ...example, extra: 'a\ud800' }).ok).toBe(false);
    expect(validate({ ...example, subject: 'a\u0000b' }).ok).toBe(false);
  });
});

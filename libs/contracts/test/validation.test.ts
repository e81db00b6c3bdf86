import type { ErrorObject } from 'ajv/dist/2020';
import Ajv2020 from 'ajv/dist/2020';
import { fullFormats } from 'ajv-formats/dist/formats';
import {
  agentSummariesQuery,
  bodyValidator,
  eventTimeMs,
  invocation,
  type JsonSchema,
  jsonTextWellFormed,
  providerSettings,
  queryValidator,
  toViolations,
  validateBody,
  validateQuery,
} from '../src/index';

describe('validators', () => {
  it('compile each schema once per instance', () => {
    const schema: JsonSchema = { type: 'object', properties: { a: { type: 'integer' } } };
    const compile = jest.spyOn(Ajv2020.prototype, 'compile');
    try {
      bodyValidator(schema);
      bodyValidator(schema);
      validateBody(schema, { a: 1 });
      expect(compile).toHaveBeenCalledTimes(1);
      queryValidator(schema);
      validateQuery(schema, { a: '1' });
      expect(compile).toHaveBeenCalledTimes(2);
    } finally {
      compile.mockRestore();
    }
  });

  it('apply body defaults in place without coercing types', () => {
    const body = { requests: [{ route: 'x' }] };
    expect(validateBody(invocation, body)).toEqual({ ok: true, value: body });
    expect(body.requests[0]).toHaveProperty('action', 'dispatch');
    const schema: JsonSchema = { type: 'object', properties: { n: { type: 'integer' } } };
    expect(validateBody(schema, { n: '5' })).toEqual({
      ok: false,
      errors: [{ pointer: '/n', message: 'n must be an integer' }],
    });
  });

  it('coerce query strings only in the query validator, on a copy', () => {
    const query = { start: '2024-05-01T00:00:00Z', limit: '250', page: '2' };
    const result = validateQuery(agentSummariesQuery, query);
    expect(result).toEqual({ ok: true, value: { start: query.start, limit: 250, page: 2, cadence: 15 } });
    expect(query.limit).toBe('250');
    expect(validateBody(agentSummariesQuery, { ...query }).ok).toBe(false);
  });

  it('skip the walk for lone surrogates and NUL only for JSON text that cannot hold one (no \\u escape)', () => {
    const schema: JsonSchema = { type: 'object' };
    const texts = {
      clean: Buffer.from('{"a":"x y","b":["ok \u{1F600}"]}', 'utf8').toString('utf8'),
      lone: '{"a":"x\\ud800y"}',
      nul: '{"a\\u0000":1}',
      escapedPair: '{"a":"\\ud83d\\ude00"}',
      // Ill-formed UTF-8 (an encoded surrogate) decodes to U+FFFD, never to a lone surrogate.
      badBytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]).toString('utf8'),
    };
    expect(Object.fromEntries(Object.entries(texts).map(([k, t]) => [k, jsonTextWellFormed(t)]))).toEqual({
      clean: true,
      lone: false,
      nul: false,
      escapedPair: false,
      badBytes: true,
    });
    const validate = bodyValidator(schema);
    for (const text of Object.values(texts)) {
      const value = JSON.parse(text);
      // Where the text passes, skipping the walk gives the answer the walk gives.
      if (jsonTextWellFormed(text)) expect(validate(value, true)).toEqual(validate(value));
      else expect(validate(value).ok).toBe(text === texts.escapedPair);
    }
  });

  it('refuse strings and member names that are not well-formed Unicode, naming each by pointer', () => {
    const schema: JsonSchema = { type: 'object' };
    const lone = JSON.parse('{"a":"x\\ud800y","b":["ok \\ud83d\\ude00","\\udc00"],"c\\ud800/d":1}');
    expect(validateBody(schema, lone)).toEqual({
      ok: false,
      errors: [
        { pointer: '/a', message: 'must be well-formed Unicode (it holds a lone surrogate)' },
        { pointer: '/b/1', message: 'must be well-formed Unicode (it holds a lone surrogate)' },
        {
          pointer: '/c\ud800~1d',
          message: 'member name must be well-formed Unicode (it holds a lone surrogate)',
        },
      ],
    });
    // A proper pair (an emoji) is fine, and schema violations are reported alongside.
    expect(validateBody(schema, { e: 'ok \u{1F600}' }).ok).toBe(true);
    const typed: JsonSchema = { type: 'object', properties: { n: { type: 'integer' } } };
    const both = validateBody(typed, { n: 'x', s: '\udfff' });
    expect(both.ok ? [] : both.errors.map((e) => e.pointer)).toEqual(['/s', '/n']);
    // Deep nesting is walked without recursion (a 500 from a stack overflow was found by the e2e sweep).
    let deep: unknown = '\ud800';
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    const nested = validateBody(schema, deep);
    expect(nested.ok ? [] : nested.errors.map((e) => e.pointer.length)).toEqual([20_000 * 2]);
  });

  it('refuse U+0000 (NUL) in body strings, member names, query and path parameters (PostgreSQL jsonb cannot hold it)', () => {
    const schema: JsonSchema = { type: 'object' };
    expect(validateBody(schema, { a: 'x\u0000', 'k\u0000': 1, ok: 'y' })).toEqual({
      ok: false,
      errors: [
        { pointer: '/a', message: 'value must not contain U+0000 (NUL)' },
        { pointer: '/k\u0000', message: 'member name must not contain U+0000 (NUL)' },
      ],
    });
    const params: JsonSchema = { type: 'object', properties: { clientId: { type: 'string' } } };
    expect(validateQuery(params, { clientId: '\u0000' })).toEqual({
      ok: false,
      errors: [{ pointer: '/clientId', message: 'clientId value must not contain U+0000 (NUL)' }],
    });
    expect(validateQuery(params, { clientId: 'c-1' }).ok).toBe(true);
  });

  it("check date-time as ajv-formats does, on its fast path (the events' own shape) and off it", () => {
    const full = (fullFormats['date-time'] as { validate: (s: string) => boolean }).validate;
    const check = bodyValidator<string>({ type: 'string', format: 'date-time' });
    const samples = [
      '2024-05-01T08:15:00.000Z',
      '2024-02-29T23:59:59.999Z',
      '2023-02-29T00:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      '2000-02-29T00:00:00.000Z',
      '2024-04-31T00:00:00.000Z',
      '2024-13-01T00:00:00.000Z',
      '2024-00-10T00:00:00.000Z',
      '2024-05-00T00:00:00.000Z',
      '2024-05-01T24:00:00.000Z',
      '2024-05-01T08:60:00.000Z',
      '2024-05-01T08:15:60.000Z',
      '2024-12-31T23:59:60.000Z',
      '2024-05-01t08:15:00.000Z',
      '2024-05-01T08:15:00.00xZ',
      '2024-05-01T08:15:00.000+',
      '2024-05-01T08:15:00.000+02:00',
      '2024-05-01T08:15:00Z',
      '2024-05-01 08:15:00.000Z',
      '20x4-05-01T08:15:00.000Z',
      '2024-05-01T08:1/:00.000Z',
    ];
    for (const s of samples) expect([s, check(s).ok]).toEqual([s, full(s)]);
    expect(samples.filter((s) => check(s).ok)).toHaveLength(8);
  });

  it('report every violation at once (allErrors)', () => {
    const result = validateBody(providerSettings, { endpoint: 'http://x', headers: 1 });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors.map((e) => e.pointer)).toEqual([
      '/provider',
      '/agentactionspermitted',
      '/endpoint',
      '/headers',
    ]);
  });
});

describe('toViolations', () => {
  const run = (schema: JsonSchema, data: unknown) => {
    const result = validateBody(schema, data);
    return result.ok ? [] : result.errors;
  };

  it('points at the missing property itself, escaping per RFC 6901', () => {
    const schema: JsonSchema = { type: 'object', required: ['a/b', 'c~d'], properties: { 'a/b': {}, 'c~d': {} } };
    expect(run(schema, {})).toEqual([
      { pointer: '/a~1b', message: 'a/b is required' },
      { pointer: '/c~0d', message: 'c~d is required' },
    ]);
  });

  it('points at an extra property and lists the allowed ones', () => {
    const schema: JsonSchema = { type: 'object', properties: { a: {}, b: {} }, additionalProperties: false };
    expect(run(schema, { a: 1, z: 2 })).toEqual([{ pointer: '/z', message: 'z is not allowed (allowed: a, b)' }]);
  });

  it('names array items by their parent', () => {
    const schema: JsonSchema = { type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } };
    expect(run(schema, { list: ['a', 1] })).toEqual([{ pointer: '/list/1', message: 'list[1] must be a string' }]);
    expect(run(schema, [])).toEqual([{ pointer: '', message: 'body must be an object' }]);
  });

  it('writes precise bound messages', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        s: { type: 'string', maxLength: 1 },
        t: { type: 'string', minLength: 3 },
        n: { type: 'number', exclusiveMaximum: 5 },
        u: { type: 'array', uniqueItems: true },
      },
    };
    expect(run(schema, { s: 'ab', t: 'a', n: 5, u: [1, 1] })).toEqual([
      { pointer: '/s', message: 's must be at most 1 character' },
      { pointer: '/t', message: 't must be at least 3 characters' },
      { pointer: '/n', message: 'n must be less than 5' },
      { pointer: '/u', message: 'u must not contain duplicates (items 0 and 1 are equal)' },
    ]);
  });

  it('folds anyOf alternatives into one report and reports the closest branch otherwise', () => {
    const alternatives: JsonSchema = { type: 'object', anyOf: [{ required: ['x'] }, { required: ['y'] }] };
    expect(run(alternatives, {})).toEqual([{ pointer: '/x', message: 'x is required (give one of: x, y)' }]);
    const shapes: JsonSchema = {
      oneOf: [
        { type: 'object', required: ['a'], properties: { a: { type: 'string' } } },
        { type: 'string', maxLength: 2 },
      ],
    };
    expect(run(shapes, 'abc')).toEqual([{ pointer: '', message: 'body must be at most 2 characters' }]);
  });

  it("uses the root label it is given and falls back to ajv's message for unknown keywords", () => {
    const error = {
      keyword: 'custom',
      instancePath: '/a',
      schemaPath: '#/custom',
      params: {},
      message: 'is odd',
    } as ErrorObject;
    expect(toViolations([error])).toEqual([{ pointer: '/a', message: 'a is odd' }]);
    const rootError = {
      keyword: 'type',
      instancePath: '',
      schemaPath: '#/type',
      params: { type: 'object' },
    } as ErrorObject;
    expect(toViolations([rootError], { rootLabel: 'query' })).toEqual([
      { pointer: '', message: 'query must be an object' },
    ]);
  });
});

describe('eventTimeMs', () => {
  it("reads the events' own shape as Date.parse does, and nothing else", () => {
    for (const t of [
      '2024-05-01T08:15:00.000Z',
      '2024-02-29T23:59:59.999Z',
      '1970-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '2000-02-29T12:00:00.000Z', // a leap day of a century divisible by 400
      '2100-03-01T00:00:00.000Z',
      '0100-01-01T00:00:00.000Z',
      '1600-02-29T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
    ]) {
      expect(eventTimeMs(t)).toBe(Date.parse(t));
    }
    for (const t of [
      '2023-02-29T00:00:00.000Z', // no such day
      '1900-02-29T00:00:00.000Z', // a century not divisible by 400 has none
      '2024-04-31T00:00:00.000Z',
      '2024-13-01T00:00:00.000Z',
      '2024-05-01 08:15:00.000Z',
      '2024-05-01T24:00:00.000Z',
      '2024-05-01T08:15:00Z', // another precision
      '2024-05-01T08:15:00.000+00:00',
      '0050-05-01T08:15:00.000Z', // Date.UTC would read it as 1950
      '2024-0a-01T08:15:00.000Z',
      '',
    ]) {
      expect(eventTimeMs(t)).toBeUndefined();
    }
  });
});

import { type JsonSchema, type Violation, validateBody, validateQuery } from '../../src/index';

/** Validates a body and returns its violations (empty when valid). */
export function bodyErrors(schema: JsonSchema, data: unknown): Violation[] {
  const result = validateBody(schema, structuredClone(data));
  return result.ok ? [] : result.errors;
}

/** Validates query parameters and returns their violations (empty when valid). */
export function queryErrors(schema: JsonSchema, data: unknown): Violation[] {
  const result = validateQuery(schema, data);
  return result.ok ? [] : result.errors;
}

/** Asserts that one violation has exactly this pointer and a message matching the pattern (and naming the field). */
export function expectViolation(errors: Violation[], pointer: string, message: RegExp | string): void {
  const atPointer = errors.filter((e) => e.pointer === pointer);
  if (atPointer.length === 0) {
    throw new Error(`no violation at ${pointer}; got ${JSON.stringify(errors, null, 1)}`);
  }
  const matches = atPointer.filter((e) =>
    typeof message === 'string' ? e.message === message : message.test(e.message),
  );
  if (matches.length === 0) {
    throw new Error(`no violation at ${pointer} matching ${message}; got ${JSON.stringify(atPointer, null, 1)}`);
  }
  const field = decodeURIComponent(pointer.split('/').pop() ?? '')
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
  if (field && !/^\d+$/.test(field)) expect(matches[0]?.message).toContain(field);
}

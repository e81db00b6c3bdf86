import { bodyValidator, type JsonSchema } from '@cc/contracts';

/** Fails with every violation when a response body does not match its schema in the contracts. */
export function expectContract(schema: JsonSchema, body: unknown): void {
  // Validate a copy: the body validator applies schema defaults in place.
  const result = bodyValidator(schema)(structuredClone(body));
  expect(result.ok ? [] : result.errors).toEqual([]);
}

import { providerSettings, validateBody } from '@cc/contracts';
import { AppError } from '@cc/kit';
import { normalizeHeaders, normalizeSettings } from '../../src/domain/provider-settings';

function violations(fn: () => unknown): { pointer: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError && err.code === 'REQUEST.VALIDATION') return [...err.errors];
    throw err;
  }
  throw new Error('expected a validation error');
}

/** What the contract's schema refuses in a Register body with these headers (the HTTP layer applies it first). */
function schemaViolations(headers: unknown): { pointer: string; message: string }[] {
  const result = validateBody(providerSettings, { provider: 'P', agentactionspermitted: {}, headers });
  return result.ok ? [] : result.errors;
}

describe('provider headers', () => {
  it('accepts a map and an array of key-value pairs, keeping names as given', () => {
    expect(normalizeHeaders({ Authorization: 'Bearer abc', 'X-Tenant': 'acme' })).toEqual([
      { name: 'Authorization', value: 'Bearer abc' },
      { name: 'X-Tenant', value: 'acme' },
    ]);
    expect(normalizeHeaders([{ key: 'authorization', value: 'Basic dXNlcjpwYXNz' }])).toEqual([
      { name: 'authorization', value: 'Basic dXNlcjpwYXNz' },
    ]);
    expect(normalizeHeaders(undefined)).toEqual([]);
  });

  it('accepts the limits exactly: 20 headers, 100-character names, 4096-character values', () => {
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`X-H${i}`, 'v']));
    expect(schemaViolations(twenty)).toEqual([]);
    expect(normalizeHeaders(twenty)).toHaveLength(20);
    expect(schemaViolations({ ['X'.repeat(100)]: 'x'.repeat(4096) })).toEqual([]);
  });

  // The rules below are the contract's JSON Schema (the one rule; the registry's code adds none of them).
  it('refuses more than 20 headers, longer names and values', () => {
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
    expect(schemaViolations(many)).toEqual([
      { pointer: '/headers', message: 'headers must have at most 20 properties' },
    ]);
    expect(schemaViolations({ ['X'.repeat(101)]: 'v' })[0]?.pointer).toBe(`/headers/${'X'.repeat(101)}`);
    expect(schemaViolations({ 'X-A': 'x'.repeat(4097) })).toEqual([
      { pointer: '/headers/X-A', message: 'X-A must be at most 4096 characters' },
    ]);
  });

  it('refuses CR, LF, NUL, other controls and non-ASCII in values without echoing them', () => {
    for (const value of ['a\r\nX-Injected: 1', 'a\nb', 'a\rb', 'a\u0000b', 'a\u007fb', 'caf\u00e9', 'a\u2028b']) {
      // A NUL is also refused by the contracts' NUL rule (PostgreSQL cannot store it): one more violation, same field.
      expect(schemaViolations([{ key: 'X-A', value }])).toContainEqual({
        pointer: '/headers/0/value',
        message:
          'value must contain only printable ASCII characters or tabs (no CR, LF, NUL or other control characters)',
      });
      expect(schemaViolations({ 'X-A': value }).map((v) => v.message)).toContain(
        'X-A must contain only printable ASCII characters or tabs (no CR, LF, NUL or other control characters)',
      );
    }
    expect(schemaViolations({ 'X-A': 'a\tb' })).toEqual([]);
  });

  it('refuses names that are not RFC 9110 tokens', () => {
    for (const name of ['bad name', 'X:A', 'X-\u00e9', '', 'X\r\nY']) {
      expect(schemaViolations([{ key: name, value: 'v' }])[0]?.pointer).toBe('/headers/0/key');
    }
    expect(schemaViolations({ 'bad name': 'v' })).toEqual([
      {
        pointer: '/headers/bad name',
        message: 'property name "bad name" must be an HTTP header name (letters, digits and !#$%&\'*+-.^_`|~)',
      },
    ]);
  });

  it('refuses headers the notifier sets itself, in any letter case', () => {
    for (const name of [
      'Host',
      'content-length',
      'Content-Type',
      'TRANSFER-ENCODING',
      'Connection',
      'webhook-id',
      'Webhook-Signature',
      'webhook-timestamp',
      'Proxy-Authorization',
      'Keep-Alive',
      'Upgrade',
      'TE',
      'Trailer',
      'Expect',
    ]) {
      expect(schemaViolations({ [name]: 'v' })).toEqual([
        {
          pointer: `/headers/${name}`,
          message: `property name "${name}" is set by the service and cannot be registered`,
        },
      ]);
    }
  });

  it('refuses a header name given twice in different letter cases', () => {
    expect(violations(() => normalizeHeaders({ 'X-Tenant': 'a', 'x-tenant': 'b' }))).toEqual([
      {
        pointer: '/headers/x-tenant',
        message: 'header x-tenant is given twice (as X-Tenant); header names are case-insensitive',
      },
    ]);
  });

  it('requires Authorization to be "<type> <credentials>"', () => {
    for (const value of ['Basic dXNlcjpwYXNz', 'Bearer a.b.c', 'Digest username="a", realm="b"', 'ApiKey x']) {
      expect(schemaViolations({ authorization: value })).toEqual([]);
    }
    for (const value of ['Bearer', 'token-only', ' Bearer x', 'Bearer  x', 'Bearer: x', '', 'Bearer caf\u00e9']) {
      expect(schemaViolations({ Authorization: value })).toEqual([
        {
          pointer: '/headers/Authorization',
          message:
            'Authorization must have the form "<type> <credentials>", e.g. "Bearer <token>" or "Basic <credentials>"',
        },
      ]);
    }
  });
});

describe('normalizeSettings', () => {
  it('refuses a header name given twice in different cases (what the schema cannot say)', () => {
    const errors = violations(() =>
      normalizeSettings({ provider: 'P', headers: { 'X-A': 'x', 'x-a': 'y' }, agentactionspermitted: {} }),
    );
    expect(errors.map((e) => e.pointer)).toEqual(['/headers/x-a']);
    // The schema alone accepts it: this is the one provider rule the code adds.
    expect(schemaViolations({ 'X-A': 'x', 'x-a': 'y' })).toEqual([]);
  });

  it('returns the provider with null endpoint when none is given', () => {
    expect(normalizeSettings({ provider: 'P', agentactionspermitted: { hold: 1 } })).toEqual({
      name: 'P',
      endpoint: null,
      headers: [],
      agentactionspermitted: { hold: 1 },
      permissions: { release: true, hold: true, retrieve: true, transferToAgent: false, transferToRoute: false },
    });
  });
});

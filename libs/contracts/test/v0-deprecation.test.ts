import { parseV0Deprecation, v0DeprecationDefaults, v0DeprecationHeaders } from '../src';

describe('v0 deprecation headers', () => {
  const d = parseV0Deprecation(v0DeprecationDefaults.deprecatedAt, v0DeprecationDefaults.sunsetAt);

  it('gives Deprecation as a structured date, Sunset as an HTTP date, and Link to the replacement', () => {
    expect(Object.fromEntries(v0DeprecationHeaders('agentstates', d))).toEqual({
      Deprecation: '@1735689600',
      Sunset: 'Thu, 01 Jul 2027 00:00:00 GMT',
      Link: '</stats/agent-activities>; rel="successor-version", </docs>; rel="deprecation"; type="text/html"',
    });
    expect(Object.fromEntries(v0DeprecationHeaders('outboundcalls', d)).Link).toMatch(/^<\/stats\/interactions>/);
  });

  it('links only the documentation for a path that names no known endpoint (nor an inherited property)', () => {
    for (const endpoint of [undefined, 'nothing', 'constructor', '__proto__']) {
      expect(Object.fromEntries(v0DeprecationHeaders(endpoint, d)).Link).toBe(
        '</docs>; rel="deprecation"; type="text/html"',
      );
    }
  });

  it('refuses dates that are not ISO 8601 date-times, naming both settings', () => {
    expect(() => parseV0Deprecation('soon', v0DeprecationDefaults.sunsetAt)).toThrow(
      /V0_DEPRECATED_AT and V0_SUNSET_AT/,
    );
    expect(() => parseV0Deprecation(v0DeprecationDefaults.deprecatedAt, '')).toThrow(/ISO 8601/);
  });
});

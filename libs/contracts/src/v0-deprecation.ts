// The deprecation of the version 0 statistics API (RFC 9745 `Deprecation`, RFC 8594 `Sunset`, `Link`): one
// definition, used by the statistics service for its answers and by the gateway for the answers it gives itself on
// /v0 paths (401, 403, 429, ...), so every v0 response carries the same headers.

/** The v0 statistics endpoints and the current endpoint replacing each. */
export const v0Replacements = {
  agentstates: '/stats/agent-activities',
  outboundcalls: '/stats/interactions',
  inboundcalls: '/stats/interactions',
} as const;

/** A v0 statistics endpoint name. */
export type V0Endpoint = keyof typeof v0Replacements;

/** When the v0 statistics API was deprecated and when it stops answering (defaults; services may override). */
export const v0DeprecationDefaults = {
  deprecatedAt: '2025-01-01T00:00:00Z',
  sunsetAt: '2027-07-01T00:00:00Z',
} as const;

/** The v0 deprecation dates. */
export interface V0Deprecation {
  deprecatedAt: Date;
  sunsetAt: Date;
}

/** Parses ISO 8601 deprecation dates; throws naming both settings when either is not a date-time. */
export function parseV0Deprecation(deprecatedAt: string, sunsetAt: string): V0Deprecation {
  const d = { deprecatedAt: new Date(deprecatedAt), sunsetAt: new Date(sunsetAt) };
  if (Number.isNaN(d.deprecatedAt.getTime()) || Number.isNaN(d.sunsetAt.getTime())) {
    throw new Error('V0_DEPRECATED_AT and V0_SUNSET_AT must be ISO 8601 date-times');
  }
  return d;
}

/**
 * The headers of a v0 response: `Deprecation` (a structured-field date), `Sunset` (an HTTP date) and `Link` to the
 * replacement (`rel="successor-version"`, when the endpoint is a known one) and to the documentation.
 */
export function v0DeprecationHeaders(endpoint: string | undefined, d: V0Deprecation): [string, string][] {
  const replacement =
    endpoint !== undefined && Object.hasOwn(v0Replacements, endpoint)
      ? `<${v0Replacements[endpoint as V0Endpoint]}>; rel="successor-version", `
      : '';
  return [
    ['Deprecation', `@${Math.floor(d.deprecatedAt.getTime() / 1000)}`],
    ['Sunset', d.sunsetAt.toUTCString()],
    ['Link', `${replacement}</docs>; rel="deprecation"; type="text/html"`],
  ];
}

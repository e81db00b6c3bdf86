import { type JsonSchema, nullable } from '../json-schema';
import { limits } from '../limits';
import { name, utcMillis } from './common';

/** A regular expression source matching a word in any letter case (JSON Schema patterns have no flags). */
export function anyCase(word: string): string {
  return [...word]
    .map((c) =>
      /[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'),
    )
    .join('');
}

/** Header names the notifier sets itself, so a provider cannot register them. */
export const reservedHeaderNames = [
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-[a-z-]*',
  'webhook-[a-z-]*',
] as const;

const reservedPattern = `^(?:${reservedHeaderNames.map((n) => (n.includes('[') ? `${anyCase(n.slice(0, n.indexOf('-')))}-[A-Za-z-]*` : anyCase(n))).join('|')})$`;

/** The pattern of the Authorization header name, in any case. */
export const authorizationNamePattern = `^${anyCase('authorization')}$`;

/** An HTTP header name (RFC 9110 token) that the service does not set itself. */
export const headerName: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  allOf: [
    {
      pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
      'x-message': "must be an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)",
    },
    { not: { pattern: reservedPattern }, 'x-message': 'is set by the service and cannot be registered' },
  ],
};

/**
 * An HTTP header value: printable ASCII and tab. No CR, LF, NUL or other controls (header injection), and no
 * non-ASCII (HTTP clients encode it differently or refuse it); this schema is the one rule, the registry adds none.
 */
export const headerValue: JsonSchema = {
  type: 'string',
  maxLength: limits.maxHeaderValue,
  pattern: '^[\\t\\x20-\\x7E]*$',
  'x-message': 'must contain only printable ASCII characters or tabs (no CR, LF, NUL or other control characters)',
};

/** An Authorization header value of the form `<type> <credentials>`, e.g. `Bearer <token>`. */
export const authorizationValue: JsonSchema = {
  type: 'string',
  maxLength: limits.maxHeaderValue,
  pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [\\x21-\\x7E][\\t\\x20-\\x7E]*$",
  'x-message': 'must have the form "<type> <credentials>", e.g. "Bearer <token>" or "Basic <credentials>"',
};

/** Headers sent with every notification: a map of name to value, or an array of {key, value} pairs. */
export const providerHeaders: JsonSchema = {
  type: ['object', 'array'],
  description: `Headers included in every POST to the endpoint, either as a map of header name to value or as an array of \`{key, value}\` pairs; at most ${limits.maxProviderHeaders}. An Authorization header must be \`<type> <credentials>\`. Names the notifier sets itself (Host, Content-Type, Content-Length, webhook-*, hop-by-hop headers) are refused. Values are encrypted at rest, never logged and never echoed.`,
  maxProperties: limits.maxProviderHeaders,
  propertyNames: headerName,
  patternProperties: { [authorizationNamePattern]: authorizationValue },
  additionalProperties: headerValue,
  maxItems: limits.maxProviderHeaders,
  items: {
    type: 'object',
    required: ['key', 'value'],
    properties: { key: headerName, value: headerValue },
    additionalProperties: false,
    if: { properties: { key: { type: 'string', pattern: authorizationNamePattern } }, required: ['key'] },
    // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword.
    then: { properties: { value: authorizationValue } },
  },
};

const permission = (description: string): JsonSchema => ({
  type: 'integer',
  enum: [0, 1],
  description,
});

/** Which agent operations are permitted on the provider's interactions: 0 = not allowed, 1 = allowed. */
export const agentActionsPermitted: JsonSchema = {
  type: 'object',
  description:
    'Operation name → 0 (not allowed) or 1 (allowed). Operations not given are not allowed, except `release`, which is allowed unless given as 0. Permitting `hold` also permits retrieve.',
  properties: {
    release: permission('Agent ends an interaction; allowed unless 0.'),
    hold: permission('Agent holds a live interaction or parks a nonlive one; also permits retrieve.'),
    transferToAgent: permission('Agent transfers the interaction to another agent.'),
    transferToRoute: permission('Agent transfers the interaction to a route.'),
  },
  additionalProperties: false,
};

/** The body of POST /interactions/Register. */
export const providerSettings: JsonSchema = {
  type: 'object',
  description:
    "Registers (creates or replaces) the account's provider of this name. Without endpoint the provider receives no notifications. The endpoint must be https and resolve to public addresses only (checked by the service).",
  required: ['provider', 'agentactionspermitted'],
  properties: {
    provider: { ...name, description: 'Name of the provider.' },
    endpoint: {
      type: ['string', 'null'],
      maxLength: 2048,
      pattern: '^[Hh][Tt][Tt][Pp][Ss]://[^\\s/?#@]+(?:[/?#][^\\s]*)?$',
      'x-message': 'must be an absolute https URL without credentials',
      description: 'https URL receiving notifications; omitted or null = no notifications.',
    },
    headers: providerHeaders,
    agentactionspermitted: agentActionsPermitted,
  },
  additionalProperties: false,
};

/** The effective permissions computed from agentactionspermitted. */
export const effectivePermissions: JsonSchema = {
  type: 'object',
  required: ['release', 'hold', 'retrieve', 'transferToAgent', 'transferToRoute'],
  properties: {
    release: { type: 'boolean' },
    hold: { type: 'boolean' },
    retrieve: { type: 'boolean', description: 'Equals hold.' },
    transferToAgent: { type: 'boolean' },
    transferToRoute: { type: 'boolean' },
  },
};

/** A registered provider as the API shows it: header values redacted. */
export const providerView: JsonSchema = {
  type: 'object',
  required: ['provider', 'endpoint', 'headers', 'agentactionspermitted', 'permissions', 'createdAt', 'updatedAt'],
  properties: {
    provider: name,
    endpoint: nullable({ type: 'string', maxLength: 2048 }),
    headers: {
      type: 'object',
      description: 'Registered header names; every value is the literal `<redacted>`.',
      additionalProperties: { type: 'string', const: '<redacted>' },
      maxProperties: limits.maxProviderHeaders,
    },
    agentactionspermitted: agentActionsPermitted,
    permissions: effectivePermissions,
    signingSecret: {
      type: 'string',
      pattern: '^whsec_[A-Za-z0-9+/=]{32,128}$',
      description:
        'Standard Webhooks signing secret; returned only when created (first registration) or rotated, never again.',
    },
    createdAt: utcMillis,
    updatedAt: utcMillis,
  },
};

import { type JsonSchema, nullable } from '../../json-schema';
import { limits } from '../../limits';
import { name, utcMillis } from '../common';
import { agentActionsPermitted, effectivePermissions } from '../providers';

/** Header values and the signing secret, sealed (AES-256-GCM) for the notifier; no other consumer holds the key. */
export const sealedSecrets: JsonSchema = {
  type: 'object',
  description:
    'AES-256-GCM ciphertext of `{"headers": [{"key", "value"}], "signingSecrets": [{"secret", "validUntil"}]}` under the delivery key `kid`, shared by the provider registry and the notifier only. Never logged.',
  required: ['kid', 'alg', 'iv', 'ciphertext', 'tag'],
  properties: {
    kid: { type: 'string', minLength: 1, maxLength: 100 },
    alg: { type: 'string', const: 'A256GCM' },
    iv: { type: 'string', pattern: '^[A-Za-z0-9_-]{16}$', description: 'base64url, 12 bytes.' },
    ciphertext: { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: 200000 },
    tag: { type: 'string', pattern: '^[A-Za-z0-9_-]{22}$', description: 'base64url, 16 bytes.' },
  },
};

const providerState: Record<string, JsonSchema> = {
  provider: name,
  endpoint: nullable({ type: 'string', maxLength: 2048 }),
  headerNames: {
    type: 'array',
    items: { type: 'string', maxLength: 100 },
    maxItems: limits.maxProviderHeaders,
    description: 'Registered header names (values only in `sealed`).',
  },
  agentactionspermitted: agentActionsPermitted,
  permissions: effectivePermissions,
  sealed: sealedSecrets,
  version: {
    type: 'integer',
    minimum: 1,
    description: 'Increases with each registration; consumers keep the highest.',
  },
  occurredAt: utcMillis,
};
const stateRequired = [
  'provider',
  'endpoint',
  'headerNames',
  'agentactionspermitted',
  'permissions',
  'sealed',
  'version',
  'occurredAt',
];

/** provider.registered: a provider name was registered for the first time. */
export const providerRegistered: JsonSchema = {
  type: 'object',
  description: 'A provider was registered for the first time (the full state).',
  required: stateRequired,
  properties: providerState,
};

/** provider.updated: a registration replaced the provider, or its signing secret was rotated (the full state). */
export const providerUpdated: JsonSchema = {
  type: 'object',
  description: 'The provider was re-registered or its signing secret rotated (the full new state).',
  required: stateRequired,
  properties: {
    ...providerState,
    reason: { type: 'string', enum: ['re-registered', 'signing-secret-rotated'] },
  },
};

/** provider.deleted: the provider was deleted; Invoke refuses its name from now on. */
export const providerDeleted: JsonSchema = {
  type: 'object',
  required: ['provider', 'version', 'occurredAt'],
  properties: { provider: name, version: { type: 'integer', minimum: 1 }, occurredAt: utcMillis },
};

/** Data schema of each provider event type. */
export const providerEvents = {
  'provider.registered': providerRegistered,
  'provider.updated': providerUpdated,
  'provider.deleted': providerDeleted,
} as const satisfies Record<string, JsonSchema>;

import type { JsonSchema } from '../json-schema';
import { text } from '../json-schema';

/** The OAuth2 scopes: one per token. */
export const scopes = {
  'interactions:write': 'Invoke and Register (interactions API).',
  stats: 'Statistics and agent summaries.',
  'interaction-content:read': 'Recorded-call analysis (conversation analyzer).',
  'interaction-content:write': 'Upload of call recordings for analysis (conversation analyzer).',
  admin: 'Administration API of the account.',
  agent: 'Agent-desktop API of the account.',
} as const;

/** A scope name. */
export type Scope = keyof typeof scopes;

/** Form body of POST /Auth/connect/token (client credentials in the body or in HTTP Basic). */
export const tokenRequest: JsonSchema = {
  type: 'object',
  required: ['grant_type', 'scope'],
  properties: {
    grant_type: { type: 'string', const: 'client_credentials' },
    scope: {
      type: 'string',
      enum: Object.keys(scopes),
      description: 'Exactly one scope per token.',
    },
    client_id: text(200, { description: 'Omit when using HTTP Basic.' }),
    client_secret: { ...text(500), writeOnly: true, description: 'Omit when using HTTP Basic.' },
  },
  additionalProperties: false,
};

/** 200 body of POST /Auth/connect/token. */
export const tokenResponse: JsonSchema = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in', 'scope'],
  properties: {
    access_token: { type: 'string', maxLength: 8192, description: 'A JWT carrying the account id and the scope.' },
    token_type: { type: 'string', const: 'Bearer' },
    expires_in: { type: 'integer', const: 7200 },
    scope: { type: 'string', enum: Object.keys(scopes) },
  },
};

/** A public JSON Web Key (RFC 7517) of the token signer. */
export const jwk: JsonSchema = {
  type: 'object',
  required: ['kty', 'kid', 'use', 'alg'],
  properties: {
    kty: { type: 'string', enum: ['RSA', 'EC', 'OKP'] },
    kid: text(200),
    use: { type: 'string', const: 'sig' },
    alg: { type: 'string', maxLength: 20, examples: ['RS256', 'ES256', 'EdDSA'] },
    n: { type: 'string', maxLength: 2000 },
    e: { type: 'string', maxLength: 20 },
    crv: { type: 'string', maxLength: 20 },
    x: { type: 'string', maxLength: 200 },
    y: { type: 'string', maxLength: 200 },
  },
};

/** The JWKS document at /.well-known/jwks.json. */
export const jwks: JsonSchema = {
  type: 'object',
  required: ['keys'],
  properties: { keys: { type: 'array', items: jwk, maxItems: 20 } },
};

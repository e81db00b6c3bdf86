import { tokenResponseExample } from '../examples';
import { jwks, tokenRequest, tokenResponse } from '../schemas/auth';
import { oauthError } from '../schemas/problem';
import { assemble, jsonResponse, type OpenApiObject, openApiVersion, problems, servers, sharedSchemas } from './build';

const description = `The suite's OAuth2 issuer.

Decisions this suite made where the specification is silent:
- Client credentials only, at POST /Auth/connect/token, credentials in the form body or HTTP Basic; **exactly one scope** per token (\`interactions:write\`, \`stats\`, \`interaction-content:read\`, \`interaction-content:write\`, \`admin\`, \`agent\`).
- Tokens are JWTs signed with a rotating key (published at /.well-known/jwks.json) carrying the account id; \`token_type\` Bearer, \`expires_in\` 7200.
- Errors of the token endpoint are RFC 6749 bodies \`{error, error_description}\` (not problem+json); rate limiting answers 429 problem+json, and an outage of the gateway's store 503 problem+json with \`Retry-After\`.
- An external OIDC issuer (issuer, audience, JWKS URL) can replace this one by configuration.`;

/** OpenAPI 3.1 document of the token and JWKS endpoints. */
export const authDocument: OpenApiObject = assemble(
  {
    openapi: openApiVersion,
    info: { title: 'Auth API', version: '1.0.0', description },
    servers,
    tags: [{ name: 'Auth' }],
    paths: {
      '/Auth/connect/token': {
        post: {
          operationId: 'issueToken',
          tags: ['Auth'],
          summary: 'Issue an access token (client credentials)',
          security: [{}, { clientBasic: [] }],
          requestBody: {
            required: true,
            content: {
              'application/x-www-form-urlencoded': {
                schema: tokenRequest,
                example: {
                  grant_type: 'client_credentials',
                  scope: 'stats',
                  client_id: 'demo',
                  client_secret: '<CLIENT_SECRET>',
                },
              },
            },
          },
          responses: {
            '200': jsonResponse('The token.', tokenResponse, { token: tokenResponseExample }),
            '400': {
              description:
                'RFC 6749 error: invalid_request, unsupported_grant_type or invalid_scope (also when the client may not use the scope).',
              content: {
                'application/json': {
                  schema: oauthError,
                  example: { error: 'invalid_scope', error_description: 'exactly one allowed scope is required' },
                },
              },
            },
            '401': {
              description: 'RFC 6749 invalid_client: unknown client or wrong secret.',
              content: { 'application/json': { schema: oauthError, example: { error: 'invalid_client' } } },
            },
            ...problems({ 429: true }),
          },
        },
      },
      '/.well-known/jwks.json': {
        get: {
          operationId: 'getJwks',
          tags: ['Auth'],
          summary: 'Public keys that verify the tokens',
          security: [],
          responses: {
            '200': jsonResponse('The JWKS (current and previous keys during a rotation).', jwks, {
              jwks: { keys: [{ kty: 'RSA', kid: 'k1', use: 'sig', alg: 'RS256', n: 'sXch...', e: 'AQAB' }] },
            }),
          },
        },
      },
    },
    components: {
      securitySchemes: {
        clientBasic: { type: 'http', scheme: 'basic', description: 'HTTP Basic `client_id:client_secret`.' },
      },
    },
  },
  { ...sharedSchemas, OAuthError: oauthError, TokenRequest: tokenRequest, TokenResponse: tokenResponse, Jwks: jwks },
);

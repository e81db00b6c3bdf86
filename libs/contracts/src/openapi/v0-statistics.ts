import { v0AgentStatesExample, v0InboundCallsExample, v0OutboundCallsExample } from '../examples';
import type { JsonSchema } from '../json-schema';
import { limits } from '../limits';
import { oauthError } from '../schemas/problem';
import {
  v0AgentState,
  v0AgentStatesResponse,
  v0InboundCall,
  v0InboundCallsResponse,
  v0OutboundCall,
  v0OutboundCallsResponse,
  v0StatisticsParams,
  v0StatisticsQuery,
  v0TokenRequest,
  v0TokenResponse,
} from '../schemas/v0';
import { apiVersions } from '../versions';
import {
  assemble,
  jsonResponse,
  type OpenApiObject,
  openApiVersion,
  parameters,
  problemResponse,
  problems,
  serverProblems,
  servers,
  sharedSchemas,
  validationProblem,
} from './build';

const versions = apiVersions['v0-statistics'];

const v0Schemes = {
  v0Basic: {
    type: 'http',
    scheme: 'basic',
    description: 'HTTP Basic `accountKey:apiToken`, only at POST /v0/oauth2/token.',
  },
  v0Token: {
    type: 'oauth2',
    description:
      'The v0 flow: client credentials where the client id is the account key and the secret the API token (HTTP Basic). Tokens last one hour and are valid only on /v0 paths of that account key.',
    flows: { clientCredentials: { tokenUrl: '/v0/oauth2/token', scopes: {} } },
  },
};

const acceptV0 = {
  name: 'Accept',
  in: 'header',
  required: false,
  description: '`application/json; version=2` (the v0 convention); `application/json` or none also get version 2.',
  schema: { type: 'string', maxLength: 1000, examples: ['application/json; version=2'] },
};

const pathParams = parameters('path', {
  ...v0StatisticsParams,
  properties: { accountKey: v0StatisticsParams.properties?.accountKey as JsonSchema },
});

/** RFC 9745 / RFC 8594 headers every v0 statistics response carries (errors too). */
function deprecationHeaders(replacement: string): Record<string, OpenApiObject> {
  return {
    Deprecation: {
      description: 'RFC 9745: when this endpoint was deprecated, as a structured-field date (`@` and Unix seconds).',
      schema: { type: 'string', pattern: '^@\\d+$', examples: ['@1735689600'] },
    },
    Sunset: {
      description: 'RFC 8594: the HTTP date after which this endpoint stops answering.',
      schema: { type: 'string', examples: ['Thu, 01 Jul 2027 00:00:00 GMT'] },
    },
    Link: {
      description: `The replacement (\`rel="successor-version"\`: ${replacement}) and the documentation (\`rel="deprecation"\`).`,
      schema: {
        type: 'string',
        examples: [
          `<${replacement.replace('GET ', '')}>; rel="successor-version", </docs>; rel="deprecation"; type="text/html"`,
        ],
      },
    },
  };
}

/** Adds the deprecation headers to every response of an operation. */
function withDeprecationHeaders(responses: Record<string, OpenApiObject>, replacement: string) {
  const extra = deprecationHeaders(replacement);
  return Object.fromEntries(
    Object.entries(responses).map(([status, r]) => [
      status,
      { ...r, headers: { ...((r.headers as Record<string, OpenApiObject> | undefined) ?? {}), ...extra } },
    ]),
  );
}

function statisticsPath(name: string, summary: string, replacement: string, schema: JsonSchema, example: unknown) {
  return {
    get: {
      operationId: `v0${name[0]?.toUpperCase()}${name.slice(1)}`,
      tags: ['v0 statistics'],
      summary,
      description: `Deprecated: use ${replacement}.`,
      deprecated: true,
      security: [{ v0Token: [] }],
      parameters: [acceptV0, ...pathParams, ...parameters('query', v0StatisticsQuery)],
      responses: withDeprecationHeaders(
        {
          '200': jsonResponse(summary, schema, { example }),
          '400': problemResponse(
            400,
            'Not exactly one of interval, latest=true or start+end, or a malformed value (`REQUEST.VALIDATION`).',
            validationProblem([{ pointer: '/query/start', message: 'start cannot be combined with interval' }]),
          ),
          ...problems(
            {
              401: 'No v0 token, or an expired or invalid one (`AUTH.UNAUTHENTICATED`).',
              403: 'The token was issued for another account key, or the v0 API is disabled for the account (`AUTH.FORBIDDEN`).',
              406: true,
              429: true,
            },
            versions,
          ),
          // Here, so that they carry the deprecation headers too (the gateway marks its own answers on v0 paths).
          ...serverProblems(`/v0/{accountKey}/statistics/${name}`),
        },
        replacement,
      ),
    },
  };
}

const description = `The deprecated version 0 statistics API, kept for existing clients.

Decisions this suite made where the specification is silent:
- Authentication: POST /v0/oauth2/token with HTTP Basic \`accountKey:apiToken\` returns a bearer token valid one hour, only on /v0 paths of that account key.
- Selection: exactly one of \`interval\` (the last N minutes, 1 to 1440), \`latest=true\` (the latest record per agent or call within the last ${limits.maxV0WindowHours} hours), or \`start\` and \`end\` (at most ${limits.maxV0WindowHours} hours); anything else → 400. Durations are hh:mm:ss strings as in v0. agentstates lists the states that started in the window; outboundcalls one row per agent leg of the outbound calls started in it; inboundcalls one row per call event (Start, NewApplet, Queue, ACDDelivery, End) that happened in it. At most ${limits.maxPageLimit} rows, oldest first.
- Deprecation: every response carries \`Deprecation\` (RFC 9745), \`Sunset\` (RFC 8594) and a \`Link\` to the replacement (\`rel="successor-version"\`) and to the documentation (\`rel="deprecation"\`).
- Data: served from the same records as the current statistics API; \`groupId\` is null (groups live in user administration).
- \`Accept: application/json; version=2\` is the v0 convention; other versions → 406.
- Replacements: agentstates → GET /stats/agent-activities; outboundcalls and inboundcalls → GET /stats/interactions.`;

/** OpenAPI 3.1 document of the deprecated v0 statistics API and its token endpoint. */
export const v0StatisticsDocument: OpenApiObject = assemble(
  {
    openapi: openApiVersion,
    info: { title: 'Statistics API v0 (deprecated)', version: '0.2.0', description },
    servers,
    tags: [{ name: 'v0 statistics' }],
    paths: {
      '/v0/oauth2/token': {
        post: {
          operationId: 'v0Token',
          tags: ['v0 statistics'],
          summary: 'Get a v0 token',
          deprecated: true,
          security: [{ v0Basic: [] }],
          requestBody: {
            required: false,
            content: { 'application/x-www-form-urlencoded': { schema: v0TokenRequest } },
          },
          responses: {
            '200': jsonResponse('A bearer token valid one hour.', v0TokenResponse, {
              token: { access_token: 'v0.c2lnbmVkLXRva2Vu', token_type: 'bearer', expires_in: 3600 },
            }),
            '400': { description: 'RFC 6749 error.', content: { 'application/json': { schema: oauthError } } },
            '401': {
              description: 'Unknown account key or wrong API token (RFC 6749 `invalid_client`).',
              content: { 'application/json': { schema: oauthError, example: { error: 'invalid_client' } } },
            },
            ...problems({ 429: true }),
          },
        },
      },
      '/v0/{accountKey}/statistics/agentstates': statisticsPath(
        'agentstates',
        'Agent states',
        'GET /stats/agent-activities',
        v0AgentStatesResponse,
        v0AgentStatesExample,
      ),
      '/v0/{accountKey}/statistics/outboundcalls': statisticsPath(
        'outboundcalls',
        'Outbound calls',
        'GET /stats/interactions',
        v0OutboundCallsResponse,
        v0OutboundCallsExample,
      ),
      '/v0/{accountKey}/statistics/inboundcalls': statisticsPath(
        'inboundcalls',
        'Inbound call events',
        'GET /stats/interactions',
        v0InboundCallsResponse,
        v0InboundCallsExample,
      ),
    },
    components: { securitySchemes: v0Schemes },
  },
  {
    ...sharedSchemas,
    OAuthError: oauthError,
    V0AgentStates: v0AgentStatesResponse,
    V0AgentState: v0AgentState,
    V0OutboundCalls: v0OutboundCallsResponse,
    V0OutboundCall: v0OutboundCall,
    V0InboundCalls: v0InboundCallsResponse,
    V0InboundCall: v0InboundCall,
  },
);

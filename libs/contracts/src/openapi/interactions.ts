import {
  assignToAgentExample,
  invokeDispatchExample,
  invokeLowerCaseExample,
  invokeReleaseExample,
  invokeResponseExample,
  registerArrayHeadersExample,
  registerExample,
  registerNoEndpointExample,
  registerResponseExample,
  releaseNotificationExample,
} from '../examples';
import type { JsonSchema } from '../json-schema';
import { limits } from '../limits';
import {
  interaction,
  invocation,
  invokeResponse,
  invokeResult,
  linkedDataItem,
  personalQueue,
  routingData,
  skillRequirement,
} from '../schemas/interactions';
import { providerNotification, providerNotificationBody, webhookHeaders } from '../schemas/notification';
import {
  agentActionsPermitted,
  effectivePermissions,
  providerHeaders,
  providerSettings,
  providerView,
} from '../schemas/providers';
import { apiVersions } from '../versions';
import {
  acceptParameter,
  assemble,
  jsonBody,
  jsonResponse,
  type OpenApiObject,
  oauth2Schemes,
  openApiVersion,
  parameters,
  problemExample,
  problemResponse,
  problems,
  requireScope,
  servers,
  sharedSchemas,
  validationProblem,
  versionedMediaTypes,
} from './build';

const versions = apiVersions.interactions;

/** A JSON response in every media type the API answers (application/json and the vendor types). */
const json = (description: string, schema: JsonSchema, examples: Record<string, unknown> = {}) =>
  jsonResponse(description, schema, examples, versionedMediaTypes(versions));

const { signingSecret: _secret, ...withoutSecret } = registerResponseExample;

const invokeOperation = (operationId: string, alias: boolean): OpenApiObject => ({
  operationId,
  tags: ['Routing'],
  summary: alias ? 'Invoke (lower-case path alias)' : 'Dispatch or release interactions',
  description: `${alias ? 'Same operation as POST /interactions/Invoke. ' : ''}Validates the whole body first; if any object is invalid nothing is processed and the 400 names each violation by pointer. Then refuses an unregistered provider (422) and unknown routes (422, pointer to the route), again before processing anything. Answers 202 with one result per request object, in order. A repeated requestId (per account, kept at least 24 hours) returns the original outcome with \`duplicate: true\` and processes nothing; the same requestId with a different body is 409, as is an externalId that already names a live interaction.`,
  security: requireScope('interactions:write'),
  parameters: [acceptParameter(versions)],
  requestBody: jsonBody(invocation, {
    dispatch: invokeDispatchExample,
    lowerCaseSpellings: invokeLowerCaseExample,
    release: invokeReleaseExample,
  }),
  responses: {
    '202': json('Accepted: one result per request object.', invokeResponse, { queued: invokeResponseExample }),
    '400': problemResponse(
      400,
      undefined,
      validationProblem([
        { pointer: '/requests/0/route', message: 'route is required when action is dispatch' },
        { pointer: '/requests/1/externalId', message: 'externalId is required when action is release' },
        { pointer: '/requests/2/linkeddata/0/value', message: 'value must be at most 50 characters' },
      ]),
    ),
    ...problems({ 401: true, 403: true, 406: true }, versions),
    '409': problemResponse(
      409,
      "A requestId was reused with a different body (`INVOKE.REQUEST_ID_CONFLICT`), or a dispatch names an externalId that already names a live interaction (`INVOKE.EXTERNAL_ID_IN_USE`, pointer to each externalId): nothing was processed. When a concurrent request took the externalId while this one was being processed, the same 409 names it, the request's other objects were processed, and a retry with the same requestIds returns their outcomes and the same 409.",
      problemExample(409, 'requestId req-0001 was already used with a different body', {
        code: 'INVOKE.REQUEST_ID_CONFLICT',
        errors: [
          { pointer: '/requests/0/requestId', message: 'requestId req-0001 was already used with a different body' },
        ],
      }),
    ),
    ...problems({ 413: true, 415: true }),
    '422': problemResponse(
      422,
      'The provider is not registered (`INVOKE.UNKNOWN_PROVIDER`, pointer `/provider`) or a route does not exist (`ROUTING.UNKNOWN_ROUTE`, pointer `/requests/{i}/route`); nothing was processed.',
      problemExample(422, 'Route Suport does not exist', {
        code: 'ROUTING.UNKNOWN_ROUTE',
        errors: [{ pointer: '/requests/0/route', message: 'route Suport does not exist' }],
      }),
    ),
    ...problems({ 429: true }),
  },
});

const registerOperation = (operationId: string, alias: boolean): OpenApiObject => ({
  operationId,
  tags: ['Providers'],
  summary: alias ? 'Register (lower-case path alias)' : 'Register (create or replace) a provider',
  description: `${alias ? 'Same operation as POST /interactions/Register. ' : ''}Creates the account's provider of this name (201, with its Standard Webhooks signing secret, shown only this once) or replaces it (200). The body echoes the stored settings with header values redacted. The endpoint must be https and resolve only to public addresses (SSRF protection; a development allowlist can relax it).`,
  security: requireScope('interactions:write'),
  parameters: [acceptParameter(versions)],
  requestBody: jsonBody(providerSettings, {
    headersAsMap: registerExample,
    headersAsArray: registerArrayHeadersExample,
    withoutEndpoint: registerNoEndpointExample,
  }),
  responses: {
    '200': json('Replaced.', providerView, { replaced: withoutSecret }),
    '201': json('Created; `signingSecret` is returned this once.', providerView, {
      created: registerResponseExample,
    }),
    '400': problemResponse(
      400,
      'The body breaks a rule (`REQUEST.VALIDATION`, one pointer per violation), the endpoint is not a public https URL (`PROVIDER.ENDPOINT_NOT_ALLOWED`), or its host is not a DNS name or has no address (`PROVIDER.ENDPOINT_UNRESOLVABLE`); pointer `/endpoint`.',
      validationProblem([
        {
          pointer: '/headers/Authorization',
          message:
            'Authorization must have the form "<type> <credentials>", e.g. "Bearer <token>" or "Basic <credentials>"',
        },
        { pointer: '/agentactionspermitted/release', message: 'release must be one of: 0, 1' },
      ]),
    ),
    ...problems({ 401: true, 403: true, 406: true, 413: true, 415: true, 429: true }, versions),
    // A 201 lost to a 502 or 504 cannot be asked for again: a retry that replaces the provider answers 200 without it.
    '502': problemResponse(
      502,
      'The registry refused or broke the connection (`DEPENDENCY.BAD_GATEWAY`); the provider may or may not be stored. Registering again is safe, but if the lost answer was the 201, its `signingSecret` is not shown again: rotate it (POST /admin/providers/{name}/signing-secret).',
    ),
    '504': problemResponse(
      504,
      'The registry did not answer in time (`DEPENDENCY.TIMEOUT`); the provider may still be stored. Registering again is safe, but if the lost answer was the 201, its `signingSecret` is not shown again: rotate it (POST /admin/providers/{name}/signing-secret).',
    ),
    '503': problemResponse(
      503,
      'Nothing was stored; retry after `Retry-After` seconds. The endpoint host could not be looked up now (DNS timed out or failed: `PROVIDER.DNS_UNAVAILABLE`), or the store, the event broker or the registry itself is unreachable (`DEPENDENCY.UNAVAILABLE`).',
      problemExample(
        503,
        'endpoint host crm.example.com could not be resolved now (no DNS answer within 2000 ms); try again later',
        {
          code: 'PROVIDER.DNS_UNAVAILABLE',
          title: 'Endpoint host could not be checked',
        },
      ),
    ),
  },
});

const notificationWebhook: OpenApiObject = {
  post: {
    operationId: 'providerNotification',
    tags: ['Providers'],
    summary: 'Notification POSTed to a provider endpoint',
    description:
      "Sent after an agent accepts an interaction of the provider (AssignToAgent) and when it is released (Release); never for a provider without endpoint. Carries the provider's registered headers and the Standard Webhooks headers. Any 2xx is success; 410 disables the endpoint; 429 and 503 honour Retry-After; other failures are retried with exponential backoff and jitter (about 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), 15 s per attempt, redirects not followed; then the delivery is dead and can be replayed through the admin API. Retries keep the same `webhook-id`; order per interaction is kept.",
    parameters: parameters('header', webhookHeaders),
    requestBody: jsonBody(providerNotificationBody, {
      assignToAgent: assignToAgentExample,
      release: releaseNotificationExample,
    }),
    responses: {
      '2XX': { description: 'Received.' },
      '410': { description: 'Gone: the notifier disables the endpoint and sends nothing more.' },
      '429': { description: 'Slow down: retried after Retry-After.' },
      '503': { description: 'Unavailable: retried after Retry-After.' },
    },
  },
};

const description = `Routing (Invoke) and provider registration (Register).

Decisions this suite made where the specification is silent:
- **Invoke** answers **202** with one result per request object (\`results[i]\` for \`requests[i]\`: interactionId, externalId, outcome \`queued\` | \`released\` | \`not-found\`, duplicate flag). At most **${limits.maxRequestsPerInvoke}** request objects per Invoke.
- The whole Invocation is validated before anything happens; unknown provider or route → **422**; reused requestId with a different body → **409**.
- \`requestId\`/\`requestid\` and \`externalId\`/\`externalid\` are both accepted, but not both spellings in one object. \`action\` defaults to \`dispatch\`. A release accepts only action, requestId and externalId. \`interactiontype\` omitted → \`nonlive\`.
- String sizes are bounded: names ${limits.maxName} characters, identifiers ${limits.maxIdentifier}, linkeddata at most ${limits.maxLinkedDataItems} items, skills at most ${limits.maxSkills}. Unknown properties are refused everywhere.
- **Register** answers **201** when it creates the provider (with its signing secret, shown once) and **200** when it replaces it; header values are never echoed. Headers may be a map or an array of {key, value}; at most ${limits.maxProviderHeaders}; names the notifier sets itself are refused.
- Path segments \`Invoke\`/\`invoke\` and \`Register\`/\`register\` are equivalent.
- Versions: only v1 exists (\`application/vnd.newvoicemedia.v1+json\`, \`application/vnd.cc-suite.v1+json\`, \`application/json\`).
- Errors are RFC 9457 \`application/problem+json\` with a stable \`code\`; notifications to providers are signed per Standard Webhooks (see \`webhooks\`).`;

/** OpenAPI 3.1 document of the interactions API (Invoke, Register) and the provider notification webhook. */
export const interactionsDocument: OpenApiObject = assemble(
  {
    openapi: openApiVersion,
    info: { title: 'Interactions API', version: '1.0.0', description },
    servers,
    tags: [
      { name: 'Routing', description: 'Interactions into and out of routing.' },
      { name: 'Providers', description: 'Provider registration and notifications.' },
    ],
    paths: {
      '/interactions/Invoke': { post: invokeOperation('invoke', false) },
      '/interactions/invoke': { post: invokeOperation('invokeLowerCase', true) },
      '/interactions/Register': { post: registerOperation('register', false) },
      '/interactions/register': { post: registerOperation('registerLowerCase', true) },
    },
    webhooks: { providerNotification: notificationWebhook },
    components: { securitySchemes: oauth2Schemes },
  },
  {
    ...sharedSchemas,
    Invocation: invocation,
    Interaction: interaction,
    LinkedDataItem: linkedDataItem,
    RoutingData: routingData,
    SkillRequirement: skillRequirement,
    PersonalQueue: personalQueue,
    InvokeResponse: invokeResponse,
    InvokeResult: invokeResult,
    ProviderSettings: providerSettings,
    ProviderHeaders: providerHeaders,
    AgentActionsPermitted: agentActionsPermitted,
    EffectivePermissions: effectivePermissions,
    Provider: providerView,
    ProviderNotificationBody: providerNotificationBody,
    ProviderNotification: providerNotification,
  },
);

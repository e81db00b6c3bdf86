import {
  agentWriteExample,
  deliveryExample,
  interactionPlanExample,
  registerResponseExample,
  routingTraceExample,
} from '../examples';
import type { JsonSchema } from '../json-schema';
import { text } from '../json-schema';
import { limits } from '../limits';
import {
  accountCreate,
  accountView,
  adminListQuery,
  agentView,
  agentWrite,
  apiClientCreate,
  apiClientView,
  appletSchema,
  breakerView,
  deliveriesQuery,
  delivery,
  featureFlags,
  featureFlagsPatch,
  idParams,
  interactionPlan,
  nameParams,
  replayRequest,
  replayResult,
  route,
  routingTrace,
  signingSecretRotation,
  skill,
  v0CredentialView,
} from '../schemas/admin';
import { listOf } from '../schemas/common';
import { eventStreamQuery, maxLastEventIdLength, streamReset } from '../schemas/event-stream';
import { providerView } from '../schemas/providers';
import { apiVersions } from '../versions';
import {
  acceptParameter,
  assemble,
  jsonBody,
  jsonResponse,
  noContent,
  type OpenApiObject,
  oauth2Schemes,
  openApiVersion,
  parameters,
  problems,
  requireScope,
  servers,
  sharedSchemas,
  versionedMediaTypes,
} from './build';

const versions = apiVersions.admin;

const { signingSecret: _secret, ...providerExample } = registerResponseExample;

interface Op {
  id: string;
  tag: string;
  summary: string;
  description?: string;
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  bodyExample?: unknown;
  ok: [status: string, description: string, schema?: JsonSchema, example?: unknown];
  /** A PUT that creates or replaces: 201 with the same body when it created. */
  createdToo?: boolean;
  errors?: Record<number, true | string>;
}

const okResponse = (text: string, schema: JsonSchema, example: unknown) =>
  jsonResponse(text, schema, example === undefined ? {} : { example }, versionedMediaTypes(versions));

/** One admin operation with the standard problem responses. */
function op(o: Op): OpenApiObject {
  const [status, okText, schema, example] = o.ok;
  const errorSpec: Record<number, true | string> = { 400: true, 401: true, 403: true, 406: true, 429: true };
  if (o.params) errorSpec[404] = true;
  if (o.body) Object.assign(errorSpec, { 413: true, 415: true });
  Object.assign(errorSpec, o.errors ?? {});
  return {
    operationId: o.id,
    tags: [o.tag],
    summary: o.summary,
    ...(o.description ? { description: o.description } : {}),
    security: requireScope('admin'),
    parameters: [
      acceptParameter(versions),
      ...(o.params ? parameters('path', o.params) : []),
      ...(o.query ? parameters('query', o.query) : []),
    ],
    ...(o.body ? { requestBody: jsonBody(o.body, o.bodyExample === undefined ? {} : { example: o.bodyExample }) } : {}),
    responses: {
      [status]: schema ? okResponse(okText, schema, example) : noContent(okText),
      ...(o.createdToo && schema ? { '201': okResponse('Created.', schema, example) } : {}),
      ...problems(errorSpec, versions),
    },
  };
}

const clientIdParams: JsonSchema = {
  type: 'object',
  required: ['clientId'],
  properties: { clientId: text(200) },
  additionalProperties: false,
};
const accountKeyParams: JsonSchema = {
  type: 'object',
  required: ['accountKey'],
  properties: { accountKey: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
  additionalProperties: false,
};

const description = `Administration of one account (the token's), plus accounts for the operator. Owned by several services behind the gateway: accounts, clients, v0 credentials and feature flags (gateway); providers (provider registry); skills, routes, interaction plans, agents and routing traces (routing); deliveries and breakers (notifier).

Decisions this suite made:
- Every path is under /admin and requires the \`admin\` scope; every object belongs to the token's account. /admin/accounts is only for a token of the configured operator account (403 otherwise).
- Names (skills, routes, plans, agents' usernames) are unique case-insensitively within an account; PUT creates or replaces by name (201 / 200); DELETE answers 204; deleting something still referenced (a plan used by a route, a skill held by an agent) is 409.
- Secrets (client secrets, v0 API tokens, provider signing secrets) are returned once, at creation or rotation.
- Listings are paged like statistics (\`page\`, \`limit\` default ${limits.defaultPageLimit}, max ${limits.maxPageLimit}) with envelope \`{meta, items}\`.
- Feature-flag changes are published as \`account.feature-flags-changed\` on cc.account.v1.
- GET /events/stream (scope \`admin\`) streams the account's events live as Server-Sent Events (served by the gateway).`;

const streamExample = `retry: 3000

id: Yk3q9QdZ.41
event: interaction.assigned
data: {"specversion":"1.0","id":"5d0c…","source":"/cc/routing","type":"interaction.assigned","time":"2026-01-05T09:30:00.000Z","subject":"0b6f…","accountid":"acme","datacontenttype":"application/json","data":{…}}

: heartbeat

`;

const streamDescription = `Server-Sent Events of the token's account, read live from Kafka by the gateway: interaction (\`cc.interaction.v1\`), agent-activity (\`cc.agent-activity.v1\`), notification-delivery (\`cc.notification-delivery.v1\`) and analysis (\`cc.analysis.v1\`) events (types and data schemas: the AsyncAPI document). Events of other accounts are never sent.

Each message is \`id: <cursor>\`, \`event: <CloudEvents type, e.g. interaction.assigned>\`, \`data: <the CloudEvents envelope JSON as on Kafka, one line>\`. The cursor is opaque.
- Starts with \`retry: 3000\` and, without a resume, the comment \`: stream open\`; then only events arriving from now on.
- A comment \`: heartbeat\` every 15 s keeps idle connections open through proxies.
- **Resume**: reconnect with \`Last-Event-ID\` (EventSource does it by itself; or the \`lastEventId\` query parameter). The gateway keeps the last events of all accounts in a bounded in-memory window (10 000 by default): the account's events after the id are replayed, then live ones follow. When the id is older than the window, from another gateway instance or from before a restart, the stream sends one \`stream.reset\` event (its id is the current position; data \`{reason, lastEventId}\`, reason \`outside-window\` or \`unknown-cursor\`) and continues live: reload state from the APIs.
- **Slow consumers**: a connection whose unsent output exceeds the gateway's bound (1 MiB or 1000 waiting events by default) is closed; reconnect with \`Last-Event-ID\`.
- Browsers' EventSource cannot send the Authorization header: read the stream with fetch (the token must not go in the URL).`;

const conflict = { 409: 'Still referenced, or the name exists with another case (`REQUEST.CONFLICT`).' };

/** OpenAPI 3.1 document of the administration API. */
export const adminDocument: OpenApiObject = assemble(
  {
    openapi: openApiVersion,
    info: { title: 'Administration API', version: '1.0.0', description },
    servers,
    tags: ['Accounts', 'Clients', 'Providers', 'Deliveries', 'Routing configuration', 'Agents'].map((name) => ({
      name,
    })),
    paths: {
      '/admin/accounts': {
        get: op({
          id: 'listAccounts',
          tag: 'Accounts',
          summary: 'List accounts (operator)',
          query: adminListQuery,
          ok: ['200', 'Accounts.', listOf(accountView)],
        }),
        post: op({
          id: 'createAccount',
          tag: 'Accounts',
          summary: 'Create an account (operator)',
          body: accountCreate,
          bodyExample: { accountId: 'acme', name: 'Acme Ltd' },
          ok: ['201', 'Created.', accountView],
          errors: { 409: 'The account id exists.' },
        }),
      },
      '/admin/account': {
        get: op({
          id: 'getAccount',
          tag: 'Accounts',
          summary: "The token's account",
          ok: ['200', 'The account.', accountView],
        }),
      },
      '/admin/account/feature-flags': {
        get: op({
          id: 'getFeatureFlags',
          tag: 'Accounts',
          summary: 'Feature flags',
          ok: ['200', 'The flags.', featureFlags],
        }),
        patch: op({
          id: 'patchFeatureFlags',
          tag: 'Accounts',
          summary: 'Change feature flags',
          body: featureFlagsPatch,
          bodyExample: { agentSummaries: true },
          ok: ['200', 'The flags after the change.', featureFlags],
        }),
      },
      '/admin/clients': {
        get: op({
          id: 'listClients',
          tag: 'Clients',
          summary: 'List API clients',
          query: adminListQuery,
          ok: ['200', 'Clients (no secrets).', listOf(apiClientView)],
        }),
        post: op({
          id: 'createClient',
          tag: 'Clients',
          summary: 'Create an API client',
          body: apiClientCreate,
          bodyExample: { name: 'WFM sync', scopes: ['stats'] },
          ok: ['201', 'Created; clientSecret is shown this once.', apiClientView],
        }),
      },
      '/admin/clients/{clientId}': {
        get: op({
          id: 'getClient',
          tag: 'Clients',
          summary: 'Get an API client',
          params: clientIdParams,
          ok: ['200', 'The client.', apiClientView],
        }),
        delete: op({
          id: 'deleteClient',
          tag: 'Clients',
          summary: 'Delete an API client (its tokens stop working at expiry)',
          params: clientIdParams,
          ok: ['204', 'Deleted.'],
        }),
      },
      '/admin/v0-credentials': {
        get: op({
          id: 'listV0Credentials',
          tag: 'Clients',
          summary: 'List v0 credentials',
          query: adminListQuery,
          ok: ['200', 'Credentials (no tokens).', listOf(v0CredentialView)],
        }),
        post: op({
          id: 'createV0Credential',
          tag: 'Clients',
          summary: 'Create v0 credentials',
          ok: ['201', 'Created; apiToken is shown this once.', v0CredentialView],
        }),
      },
      '/admin/v0-credentials/{accountKey}': {
        delete: op({
          id: 'deleteV0Credential',
          tag: 'Clients',
          summary: 'Delete v0 credentials',
          params: accountKeyParams,
          ok: ['204', 'Deleted.'],
        }),
      },
      '/admin/providers': {
        get: op({
          id: 'listProviders',
          tag: 'Providers',
          summary: 'List providers',
          query: adminListQuery,
          ok: ['200', 'Providers (header values redacted).', listOf(providerView)],
        }),
      },
      '/admin/providers/{name}': {
        get: op({
          id: 'getProvider',
          tag: 'Providers',
          summary: 'Get a provider',
          params: nameParams,
          ok: ['200', 'The provider (redacted).', providerView, providerExample],
        }),
        delete: op({
          id: 'deleteProvider',
          tag: 'Providers',
          summary: 'Delete a provider (emits provider.deleted; Invoke then refuses the name)',
          params: nameParams,
          ok: ['204', 'Deleted.'],
        }),
      },
      '/admin/providers/{name}/signing-secret': {
        post: op({
          id: 'rotateSigningSecret',
          tag: 'Providers',
          summary: 'Rotate the Standard Webhooks signing secret',
          description: 'The previous secret keeps signing (both signatures sent) until previousValidUntil (24 hours).',
          params: nameParams,
          ok: ['200', 'The new secret, shown this once.', signingSecretRotation],
        }),
      },
      '/admin/providers/{name}/deliveries/replay': {
        post: op({
          id: 'replayProviderDeliveries',
          tag: 'Deliveries',
          summary: 'Replay failed and dead deliveries of a provider since a time',
          params: nameParams,
          body: replayRequest,
          bodyExample: { since: '2024-05-01T00:00:00Z' },
          ok: ['202', 'Replay scheduled.', replayResult],
          errors: { 404: 'The account has no provider of this name (`NOTIFIER.PROVIDER_NOT_FOUND`).' },
        }),
      },
      '/admin/deliveries': {
        get: op({
          id: 'listDeliveries',
          tag: 'Deliveries',
          summary: 'List deliveries by provider and state',
          query: deliveriesQuery,
          ok: ['200', 'Deliveries with their attempts.', listOf(delivery)],
        }),
      },
      '/admin/deliveries/{id}': {
        get: op({
          id: 'getDelivery',
          tag: 'Deliveries',
          summary: 'Get a delivery',
          params: idParams,
          ok: ['200', 'The delivery.', delivery, deliveryExample],
        }),
      },
      '/admin/deliveries/{id}/replay': {
        post: op({
          id: 'replayDelivery',
          tag: 'Deliveries',
          summary: 'Replay one delivery (same webhook-id)',
          params: idParams,
          ok: ['202', 'Replay scheduled.', replayResult],
          errors: { 409: 'The delivery is pending.' },
        }),
      },
      '/admin/breakers': {
        get: op({
          id: 'listBreakers',
          tag: 'Deliveries',
          summary: 'Circuit-breaker state per provider endpoint',
          query: adminListQuery,
          ok: ['200', 'Breakers.', listOf(breakerView)],
        }),
      },
      '/admin/skills': {
        get: op({
          id: 'listSkills',
          tag: 'Routing configuration',
          summary: 'List skills',
          query: adminListQuery,
          ok: ['200', 'Skills.', listOf(skill)],
        }),
      },
      '/admin/skills/{name}': {
        put: op({
          id: 'putSkill',
          tag: 'Routing configuration',
          summary: 'Create or replace a skill',
          params: nameParams,
          body: skill,
          bodyExample: { name: 'Printers' },
          ok: ['200', 'Replaced (201 when created).', skill],
          createdToo: true,
          errors: conflict,
        }),
        delete: op({
          id: 'deleteSkill',
          tag: 'Routing configuration',
          summary: 'Delete a skill',
          params: nameParams,
          ok: ['204', 'Deleted.'],
          errors: conflict,
        }),
      },
      '/admin/routes': {
        get: op({
          id: 'listRoutes',
          tag: 'Routing configuration',
          summary: 'List routes',
          query: adminListQuery,
          ok: ['200', 'Routes.', listOf(route)],
        }),
      },
      '/admin/routes/{name}': {
        get: op({
          id: 'getRoute',
          tag: 'Routing configuration',
          summary: 'Get a route',
          params: nameParams,
          ok: ['200', 'The route.', route],
        }),
        put: op({
          id: 'putRoute',
          tag: 'Routing configuration',
          summary: 'Create or replace a route',
          params: nameParams,
          body: route,
          bodyExample: { name: 'Support', interactionPlan: 'Support Plan' },
          ok: ['200', 'Replaced (201 when created).', route],
          createdToo: true,
          errors: { ...conflict, 422: 'The interaction plan does not exist.' },
        }),
        delete: op({
          id: 'deleteRoute',
          tag: 'Routing configuration',
          summary: 'Delete a route',
          params: nameParams,
          ok: ['204', 'Deleted.'],
        }),
      },
      '/admin/interaction-plans': {
        get: op({
          id: 'listInteractionPlans',
          tag: 'Routing configuration',
          summary: 'List interaction plans',
          query: adminListQuery,
          ok: ['200', 'Plans.', listOf(interactionPlan)],
        }),
      },
      '/admin/interaction-plans/{name}': {
        get: op({
          id: 'getInteractionPlan',
          tag: 'Routing configuration',
          summary: 'Get an interaction plan',
          params: nameParams,
          ok: ['200', 'The plan.', interactionPlan, interactionPlanExample],
        }),
        put: op({
          id: 'putInteractionPlan',
          tag: 'Routing configuration',
          summary: 'Create or replace an interaction plan',
          description: 'Applets run in order; goto targets must name applets of the plan (422 otherwise).',
          params: nameParams,
          body: interactionPlan,
          bodyExample: interactionPlanExample,
          ok: ['200', 'Replaced (201 when created).', interactionPlan],
          createdToo: true,
          errors: { ...conflict, 422: 'A goto target or skill does not exist.' },
        }),
        delete: op({
          id: 'deleteInteractionPlan',
          tag: 'Routing configuration',
          summary: 'Delete an interaction plan',
          params: nameParams,
          ok: ['204', 'Deleted.'],
          errors: conflict,
        }),
      },
      '/admin/agents': {
        get: op({
          id: 'listAgents',
          tag: 'Agents',
          summary: 'List agents',
          query: adminListQuery,
          ok: ['200', 'Agents.', listOf(agentView)],
        }),
        post: op({
          id: 'createAgent',
          tag: 'Agents',
          summary: 'Create an agent',
          body: agentWrite,
          bodyExample: agentWriteExample,
          ok: ['201', 'Created.', agentView],
          errors: {
            409: 'The username exists (case-insensitively).',
            422: 'A skill the agent holds is not configured (`ROUTING.UNKNOWN_SKILL`, naming each).',
          },
        }),
      },
      '/admin/agents/{id}': {
        get: op({
          id: 'getAgent',
          tag: 'Agents',
          summary: 'Get an agent',
          params: idParams,
          ok: ['200', 'The agent.', agentView],
        }),
        put: op({
          id: 'putAgent',
          tag: 'Agents',
          summary: 'Replace an agent',
          params: idParams,
          body: agentWrite,
          ok: ['200', 'Replaced.', agentView],
          errors: {
            409: 'The username exists (case-insensitively).',
            422: 'A skill the agent holds is not configured (`ROUTING.UNKNOWN_SKILL`, naming each).',
          },
        }),
        delete: op({
          id: 'deleteAgent',
          tag: 'Agents',
          summary: 'Delete an agent (must be logged out)',
          params: idParams,
          ok: ['204', 'Deleted.'],
          errors: { 409: 'The agent is logged in.' },
        }),
      },
      '/events/stream': {
        get: {
          operationId: 'streamEvents',
          tags: ['Event stream'],
          summary: "Live events of the token's account (Server-Sent Events)",
          description: streamDescription,
          security: requireScope('admin'),
          parameters: [
            ...parameters('query', eventStreamQuery),
            {
              name: 'Last-Event-ID',
              in: 'header',
              required: false,
              description: 'Resume after this event id (the `id` of the last event received).',
              schema: { type: 'string', minLength: 1, maxLength: maxLastEventIdLength },
            },
          ],
          responses: {
            '200': {
              description:
                'The event stream (never ends by itself). Events: the CloudEvents types of the four topics, and `stream.reset` (data: StreamReset).',
              headers: {
                'x-request-id': {
                  description: 'Request id; quote it when reporting a problem.',
                  schema: { type: 'string', maxLength: 200 },
                },
              },
              content: { 'text/event-stream': { schema: { type: 'string' }, example: streamExample } },
            },
            ...problems({
              400: '`lastEventId` or `Last-Event-ID` is empty or too long, or the query has other parameters (`REQUEST.VALIDATION`).',
              401: true,
              403: true,
              429: true,
            }),
          },
        },
      },
      '/admin/interactions/{id}/trace': {
        get: op({
          id: 'getRoutingTrace',
          tag: 'Routing configuration',
          summary: 'Routing decisions taken for an interaction',
          params: idParams,
          ok: [
            '200',
            'The trace: candidates, exclusions and the winner of each decision.',
            routingTrace,
            routingTraceExample,
          ],
        }),
      },
    },
    components: { securitySchemes: oauth2Schemes },
  },
  {
    ...sharedSchemas,
    Account: accountView,
    AccountCreate: accountCreate,
    FeatureFlags: featureFlags,
    ApiClient: apiClientView,
    ApiClientCreate: apiClientCreate,
    V0Credential: v0CredentialView,
    Provider: providerView,
    SigningSecretRotation: signingSecretRotation,
    Delivery: delivery,
    ReplayRequest: replayRequest,
    ReplayResult: replayResult,
    Breaker: breakerView,
    Skill: skill,
    Route: route,
    InteractionPlan: interactionPlan,
    Applet: appletSchema,
    Agent: agentView,
    AgentWrite: agentWrite,
    RoutingTrace: routingTrace,
    StreamReset: streamReset,
  },
);

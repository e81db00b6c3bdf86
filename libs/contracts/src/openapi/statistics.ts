import { agentActivitiesExample, statsInteractionsExample } from '../examples';
import { limits } from '../limits';
import { pageMeta } from '../schemas/common';
import {
  agentActivitiesQuery,
  agentActivitiesResponse,
  agentActivity,
  channel,
  channelEvent,
  interactionRecord,
  statsInteractionsQuery,
  statsInteractionsResponse,
} from '../schemas/statistics';
import { apiVersions } from '../versions';
import {
  acceptParameter,
  assemble,
  jsonResponse,
  type OpenApiObject,
  oauth2Schemes,
  openApiVersion,
  parameters,
  problemResponse,
  problems,
  requireScope,
  servers,
  sharedSchemas,
  validationProblem,
} from './build';

const versions = apiVersions.statistics;
const vendorTypes = versions.supported.flatMap((v) => [
  `application/vnd.newvoicemedia.v${v}+json`,
  `application/vnd.cc-suite.v${v}+json`,
]);
const media = ['application/json', ...vendorTypes];

const windowProblem = problemResponse(
  400,
  'A parameter breaks a rule (one pointer per violation), or the window is empty or longer than 31 days (`REQUEST.VALIDATION`).',
  validationProblem([
    { pointer: '/query/start', message: 'start is required' },
    { pointer: '/query/limit', message: 'limit must be at most 5000' },
  ]),
);

const description = `Statistics: agent activities and interaction records (calls with channels and events). Replaces the deprecated v0 statistics API (agentstates → agent-activities; outboundcalls and inboundcalls → interactions).

Decisions this suite made where the specification is silent:
- Query parameters: \`start\` (required, ISO 8601 with a time zone), \`end\` (default now), window at most **${limits.maxWindowDays} days** (400 otherwise), \`include\` = \`Started\` (default) | \`StartedOrEnded\` | \`Processed\`, paging \`page\` (1-based, default 1) and \`limit\` (default ${limits.defaultPageLimit}, max ${limits.maxPageLimit}); agent-activities also take \`agentId\` and \`type\`. Unknown parameters are refused.
- Envelope \`{meta: {page, count, pageCount, totalCount}, items, upTo}\`; poll with the previous \`upTo\` as \`start\` and \`include=Processed\`.
- Durations and offsets are milliseconds; timestamps UTC with milliseconds. Items are sorted oldest first (by start).
- \`include\`: \`Started\` selects by start, \`StartedOrEnded\` by start or end, \`Processed\` by the time the service last wrote the item or record (a record completed late is found again by a poller using \`upTo\`).
- Running items are included: an agent activity still running has \`status\` \`InProgress\` (Interaction items) and its duration so far; a record still running has \`status\` \`InProgress\`. Presence and Workload items are the periods between two changes; HeldExternalParty is not an agent activity of its own (it is a \`Held\` event of the agent's channel in the interaction record).
- Interaction records: the first channel is the external party's (role \`External\`, its guid the conversation guid) and carries the plan's \`InteractionPlan\`, \`Applet\` (a Queue applet is \`appletType\` \`ACD\`), \`DataSourceValueAcquired\` and \`Queue\` events; every offer to an agent is a channel of its own (role \`Agent\`, touchpoint the agent's username) with \`Ringing\`, \`Connected\`, \`CallRecording\` (when the plan recorded the call), \`Held\` and \`Wrap\` events; \`endReason\` is \`Released\`, \`Transferred\`, \`Rejected\`, \`TimedOut\` or \`Failed\`.
- Version: v3 (\`application/vnd.newvoicemedia.v3+json\`, \`application/vnd.cc-suite.v3+json\`, \`application/json\`).
- Errors are RFC 9457 \`application/problem+json\`; query violations point at \`/query/<name>\`.`;

/** OpenAPI 3.1 document of the statistics API. */
export const statisticsDocument: OpenApiObject = assemble(
  {
    openapi: openApiVersion,
    info: { title: 'Statistics API', version: '3.0.0', description },
    servers,
    tags: [{ name: 'Statistics' }],
    paths: {
      '/stats/agent-activities': {
        get: {
          operationId: 'listAgentActivities',
          tags: ['Statistics'],
          summary: 'Agent activities (presence, workload, interaction segments)',
          description:
            'Replaces GET /v0/{accountKey}/statistics/agentstates (everything but groupId, which comes from user administration).',
          security: requireScope('stats'),
          parameters: [acceptParameter(versions), ...parameters('query', agentActivitiesQuery)],
          responses: {
            '200': jsonResponse(
              'A page of agent activities.',
              agentActivitiesResponse,
              { page: agentActivitiesExample },
              media,
            ),
            '400': windowProblem,
            ...problems({ 401: true, 403: true, 406: true, 429: true }, versions),
          },
        },
      },
      '/stats/interactions': {
        get: {
          operationId: 'listInteractions',
          tags: ['Statistics'],
          summary: 'Interaction records started, ended or processed in a window',
          description:
            "Replaces GET /v0/{accountKey}/statistics/outboundcalls and inboundcalls. Each record's guid is the GUID recorded-call analysis takes.",
          security: requireScope('stats'),
          parameters: [acceptParameter(versions), ...parameters('query', statsInteractionsQuery)],
          responses: {
            '200': jsonResponse(
              'A page of interaction records.',
              statsInteractionsResponse,
              { page: statsInteractionsExample },
              media,
            ),
            '400': windowProblem,
            ...problems({ 401: true, 403: true, 406: true, 429: true }, versions),
          },
        },
      },
    },
    components: { securitySchemes: oauth2Schemes },
  },
  {
    ...sharedSchemas,
    PageMeta: pageMeta,
    AgentActivitiesPage: agentActivitiesResponse,
    AgentActivity: agentActivity,
    InteractionsPage: statsInteractionsResponse,
    InteractionRecord: interactionRecord,
    Channel: channel,
    ChannelEvent: channelEvent,
  },
);

import { agentSummariesExample } from '../examples';
import { limits } from '../limits';
import { pageMeta } from '../schemas/common';
import { agentSummariesQuery, agentSummariesResponse, agentSummary } from '../schemas/summaries';
import { apiVersions } from '../versions';
import {
  acceptParameter,
  assemble,
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
} from './build';

const versions = apiVersions['agent-summaries'];
const media = [
  'application/json',
  ...versions.supported.flatMap((v) => [
    `application/vnd.newvoicemedia.v${v}+json`,
    `application/vnd.cc-suite.v${v}+json`,
  ]),
];

const description = `Agent activity aggregated over fixed 15-minute periods, for workforce-management integrations.

Decisions this suite made where the specification is silent:
- \`cadence\` accepts only ${limits.cadenceMinutes}; the spec both requires it and gives it a default, so it may be omitted (15). Any other value → 400 naming \`cadence\`.
- Paging: \`page\` (1-based, default 1), \`limit\` (default ${limits.defaultPageLimit}, max ${limits.maxPageLimit}). Window: \`start\` required, \`end\` default now, at most ${limits.maxWindowDays} days, else 400. Unknown parameters are refused.
- totalTime and the inbound/outbound/internal breakdowns are **seconds** (rounded down); a state spanning a period boundary is split at it. Items are sorted by timestamp, descending.
- When the feature is not enabled for the account: **403** with code \`SUMMARIES.FEATURE_DISABLED\` (rather than an empty page, so a misconfiguration is visible).
- Version: v3, like the rest of the statistics family.

What is counted where:
- The window selects every period that overlaps \`[start, end)\`, so the period holding \`start\` is included.
- Presence \`count\` and the \`HoldExternalParty\` action count in the period where the state or hold began; an offer (\`offered\`) counts in the period where it stopped ringing (when its outcome is known). An offer withdrawn while ringing (the caller hung up) counts Ringing time but no offer outcome.
- An activity still open counts up to \`upTo\`. \`LoggedOut\` time counts only in the periods where the agent logged out and logged back in: a period spent wholly logged out has no summary, as agents who never logged in have none.

Completeness and late events (beyond the specification):
- \`upTo\` is a watermark: every event that occurred before it has been processed, for every agent of the account. Summaries of periods that end at or before \`upTo\` are final; the period holding \`upTo\` is partial. A poller that passes the previous \`upTo\` as \`start\` misses nothing (the partial period comes again, complete).
- An event can still arrive later than the watermark allowed (a producer outage, a replay). Its summaries are then recomputed, never double-counted, and each item carries a \`revision\` that grows with every change. To collect such revisions, ask with \`revisedSince\` = an earlier response's \`upTo\` (and a \`start\` as far back as you keep data): only summaries changed since then are returned. Open activities growing up to \`upTo\` do not change \`revision\`.`;

/** OpenAPI 3.1 document of the agent summaries API. */
export const agentSummariesDocument: OpenApiObject = assemble(
  {
    openapi: openApiVersion,
    info: { title: 'Agent Summaries API', version: '3.1.0', description },
    servers,
    tags: [{ name: 'Agent summaries' }],
    paths: {
      '/stats/wfm/agent-summaries': {
        get: {
          operationId: 'listAgentSummaries',
          tags: ['Agent summaries'],
          summary: 'Agent activity per 15-minute period',
          description: "When polling, pass the previous response's `upTo` as `start`.",
          security: requireScope('stats'),
          parameters: [acceptParameter(versions), ...parameters('query', agentSummariesQuery)],
          responses: {
            '200': jsonResponse(
              'A page of agent summaries.',
              agentSummariesResponse,
              { page: agentSummariesExample },
              media,
            ),
            '400': problemResponse(
              400,
              'A parameter breaks a rule, e.g. cadence other than 15 or a window over 31 days (`REQUEST.VALIDATION`).',
              validationProblem([{ pointer: '/query/cadence', message: 'cadence must be 15' }]),
            ),
            '401': problemResponse(401),
            '403': problemResponse(
              403,
              'The token lacks the `stats` scope (`AUTH.FORBIDDEN`), or agent summaries are not enabled for the account (`SUMMARIES.FEATURE_DISABLED`).',
              problemExample(403, 'Agent summaries are not enabled for this account', {
                code: 'SUMMARIES.FEATURE_DISABLED',
              }),
            ),
            ...problems({ 406: true, 429: true }, versions),
          },
        },
      },
    },
    components: { securitySchemes: oauth2Schemes },
  },
  { ...sharedSchemas, PageMeta: pageMeta, AgentSummariesPage: agentSummariesResponse, AgentSummary: agentSummary },
);

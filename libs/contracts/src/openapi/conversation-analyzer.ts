import { analysisV1Example, analysisV2Example, analysisV3Example } from '../examples';
import type { JsonSchema } from '../json-schema';
import { limits } from '../limits';
import {
  analysisItemByVersion,
  analysisItemV1,
  analysisItemV2,
  analysisItemV3,
  analysisListQuery,
  analysisParams,
  analysisQuery,
  callTimeBreakDown,
} from '../schemas/analysis';
import { apiVersions } from '../versions';
import {
  acceptParameter,
  assemble,
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
  versionedContent,
} from './build';

const versions = apiVersions['conversation-analyzer'];
const itemOf = (v: number): JsonSchema => analysisItemByVersion[v as 1 | 2 | 3];
const exampleOf = (v: number): unknown => ({ 1: analysisV1Example, 2: analysisV2Example, 3: analysisV3Example })[v];

/** The list response schema of each version: an array of items, one per known call. */
const listOf = (v: number): JsonSchema => ({ type: 'array', items: itemOf(v), maxItems: limits.maxCalls });

const description = `Analysis of recorded calls: categorisation, call-time breakdown, processing status, confidence and optionally the transcript. Call GUIDs come from GET /stats/interactions.

Decisions this suite made where the specification is silent:
- **Versions** are chosen by Accept: \`application/vnd.newvoicemedia.v{1|2|3}+json\` or \`application/vnd.cc-suite.v{1|2|3}+json\`; \`application/json\` or none gets v3. v1: categories carry \`subcategories\`; v2: nested \`categories\` of {name, matches}; v3: v2 plus \`language\`. Anything else → 406 listing the valid versions.
- \`confidence\` is written \`High\` | \`Medium\` | \`Low\` (as the examples capitalise it), null until processed; \`language\` null until processed. The property is spelt \`callTimeBreakDown\`, in seconds.
- \`calls\`: 1 to ${limits.maxCalls} comma-separated GUIDs without spaces (400 otherwise). The list answers one item per **known** call, in request order; unknown GUIDs are left out. The single-call endpoint answers 404 for an unknown GUID.
- \`transcript\` (boolean, default false) includes the transcript; otherwise it is null.`;

/** OpenAPI 3.1 document of the conversation analyzer (recorded-call analysis) API. */
export const conversationAnalyzerDocument: OpenApiObject = assemble(
  {
    openapi: openApiVersion,
    info: { title: 'Conversation Analyzer API', version: '3.0.0', description },
    servers,
    tags: [{ name: 'Recorded-call analysis' }],
    paths: {
      '/conversation-analyzer/interactions/{guid}': {
        get: {
          operationId: 'getInteractionAnalysis',
          tags: ['Recorded-call analysis'],
          summary: 'Analysis of one recorded call',
          security: requireScope('interaction-content:read'),
          parameters: [
            acceptParameter(versions),
            ...parameters('path', analysisParams),
            ...parameters('query', analysisQuery),
          ],
          responses: {
            '200': {
              description: 'The analysis item in the negotiated version.',
              content: versionedContent(versions, itemOf, exampleOf),
            },
            '400': problemResponse(
              400,
              'guid is not a GUID or transcript not a boolean (`REQUEST.VALIDATION`).',
              validationProblem([
                {
                  pointer: '/params/guid',
                  message: 'guid must be a GUID such as 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
                },
              ]),
            ),
            ...problems({ 401: true, 403: true }),
            '404': problemResponse(
              404,
              'No recording with this GUID in the account (`ANALYSIS.UNKNOWN_CALL`).',
              problemExample(404, 'No recorded call 3f2b8c1e-9d4a-4c6b-8e2f-1a7d5c9b0e34', {
                code: 'ANALYSIS.UNKNOWN_CALL',
              }),
            ),
            ...problems({ 406: true, 429: true }, versions),
          },
        },
      },
      '/conversation-analyzer/interactions': {
        get: {
          operationId: 'listInteractionAnalyses',
          tags: ['Recorded-call analysis'],
          summary: 'Analyses of up to 50 recorded calls',
          security: requireScope('interaction-content:read'),
          parameters: [acceptParameter(versions), ...parameters('query', analysisListQuery)],
          responses: {
            '200': {
              description: 'One item per known call, in request order, in the negotiated version.',
              content: versionedContent(versions, listOf, (v) => [exampleOf(v)]),
            },
            '400': problemResponse(
              400,
              'calls is missing, has more than 50 GUIDs or a malformed one (`REQUEST.VALIDATION`).',
              validationProblem([
                {
                  pointer: '/query/calls',
                  message: 'calls must be a comma-separated list of 1 to 50 call GUIDs (no spaces)',
                },
              ]),
            ),
            ...problems({ 401: true, 403: true, 406: true, 429: true }, versions),
          },
        },
      },
    },
    components: { securitySchemes: oauth2Schemes },
  },
  {
    ...sharedSchemas,
    AnalysisItemV1: analysisItemV1,
    AnalysisItemV2: analysisItemV2,
    AnalysisItemV3: analysisItemV3,
    CallTimeBreakDown: callTimeBreakDown,
  },
);

import { analysisV1Example, analysisV2Example, analysisV3Example } from '../examples';
import type { JsonSchema } from '../json-schema';
import { limits } from '../limits';
import {
  analysisItemByVersion,
  analysisItemV1,
  analysisItemV2,
  analysisItemV3,
  analysisListQuery,
  analysisNotFoundItem,
  analysisParams,
  analysisQuery,
  callTimeBreakDown,
  categoryRuleSet,
  recordingAccepted,
  recordingQuery,
} from '../schemas/analysis';
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
  versionedContent,
} from './build';

const versions = apiVersions['conversation-analyzer'];
const itemOf = (v: number): JsonSchema => analysisItemByVersion[v as 1 | 2 | 3];
const exampleOf = (v: number): unknown => ({ 1: analysisV1Example, 2: analysisV2Example, 3: analysisV3Example })[v];

/** The list response schema of each version: one entry per requested GUID (an item, or the not-found entry). */
const listOf = (v: number): JsonSchema => ({
  type: 'array',
  items: { oneOf: [itemOf(v), analysisNotFoundItem] },
  maxItems: limits.maxCalls,
});

const description = `Analysis of recorded calls: categorisation, call-time breakdown, processing status, confidence and optionally the transcript. Call GUIDs come from GET /stats/interactions.

Decisions this suite made where the specification is silent:
- **Versions** are chosen by Accept: \`application/vnd.newvoicemedia.v{1|2|3}+json\` or \`application/vnd.cc-suite.v{1|2|3}+json\`; \`application/json\` or none gets v3. v1: categories carry \`subcategories\`; v2: nested \`categories\` of {name, matches}; v3: v2 plus \`language\`. Anything else → 406 listing the valid versions.
- \`confidence\` is written \`High\` | \`Medium\` | \`Low\` (as the examples capitalise it), null until processed; \`language\` null until processed. The property is spelt \`callTimeBreakDown\`, in seconds.
- \`calls\`: 1 to ${limits.maxCalls} comma-separated GUIDs without spaces (400 otherwise). The list answers one entry per requested GUID, in request order; a GUID the account has no recording of is answered as \`{guid, error: {status: 404, code: "ANALYSIS.UNKNOWN_CALL", title}}\` in its place. The single-call endpoint answers 404 for an unknown GUID.
- \`transcript\` (boolean, default false) includes the transcript; otherwise it is null. The transcript has one line per turn, \`[mm:ss.s Agent] words\` / \`[mm:ss.s Customer] words\`.
- \`status\`: \`processing\` from the upload (or the \`interaction.recorded\` event) until the analysis ends, then \`processed\` or \`failed\`; until processed, \`confidence\` and \`language\` are null, \`categories\` empty and \`callTimeBreakDown\` zeros.
- \`callTimeBreakDown\` comes from WebRTC voice activity detection on each channel; the transcript from speech recognition (CMU PocketSphinx, US English, by default). \`confidence\` is the duration-weighted mean of the recognizer's word posteriors: High ≥ 0.7, Medium ≥ 0.4, Low below; null when the transcript came from the telephony platform (no recognizer scores). \`language\` is the recording's (Content-Language of the upload, \`language\` of the event) or the engine's.
- **Recordings in**: \`PUT /conversation-analyzer/recordings/{guid}\` (scope \`interaction-content:write\`) with a 16-bit PCM WAV, 8 to 48 kHz: \`audio/wav\` stereo (agent on \`agentChannel\`, default left) or \`multipart/form-data\` with mono parts \`agent\` and \`customer\`. Too large: 413; not a WAV or unusable: 400; another encoding or type: 415. A new upload replaces the recording and analyses again. Platforms that send segments instead of audio publish \`interaction.recorded\` on cc.interaction.v1.
- **Categories** come from the account's rule set (\`PUT /admin/analysis/categories\`, scope \`admin\`): category → subcategories → phrases, matched as whole words on the normalized transcript (lower case, punctuation and apostrophes dropped).`;

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
      '/conversation-analyzer/recordings/{guid}': {
        put: {
          operationId: 'putRecording',
          tags: ['Recorded-call analysis'],
          summary: "Upload a call's recording for analysis",
          security: requireScope('interaction-content:write'),
          parameters: [
            ...parameters('path', analysisParams),
            ...parameters('query', recordingQuery),
            {
              name: 'Content-Language',
              in: 'header',
              required: false,
              schema: { type: 'string', maxLength: 20 },
              description: 'Language of the call (e.g. en-US); answered as `language` (v3).',
            },
          ],
          requestBody: {
            required: true,
            content: {
              'audio/wav': {
                schema: {
                  type: 'string',
                  contentMediaType: 'audio/wav',
                  description: 'Stereo 16-bit PCM WAV: agent on agentChannel, customer on the other.',
                },
              },
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: ['agent', 'customer'],
                  description: 'Two mono 16-bit PCM WAV parts named agent and customer.',
                  properties: {
                    agent: { type: 'string', contentMediaType: 'audio/wav' },
                    customer: { type: 'string', contentMediaType: 'audio/wav' },
                  },
                },
              },
            },
          },
          responses: {
            '202': jsonResponse('Stored; the analysis is queued (status processing).', recordingAccepted, {
              accepted: {
                guid: '3f2b8c1e-9d4a-4c6b-8e2f-1a7d5c9b0e34',
                recordingId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
                status: 'processing',
              },
            }),
            '400': problemResponse(
              400,
              'Not a WAV file, truncated or empty (`ANALYSIS.BAD_AUDIO`), or a bad parameter (`REQUEST.VALIDATION`).',
            ),
            ...problems({ 401: true, 403: true }),
            '413': problemResponse(413, 'The recording exceeds the size limit (`ANALYSIS.RECORDING_TOO_LARGE`).'),
            '415': problemResponse(
              415,
              'Not 16-bit PCM WAV, not 1 or 2 channels, or another Content-Type (`ANALYSIS.UNSUPPORTED_AUDIO`).',
            ),
            ...problems({ 429: true }),
          },
        },
      },
      '/admin/analysis/categories': {
        get: {
          operationId: 'getCategoryRules',
          tags: ['Recorded-call analysis'],
          summary: "The account's category rules",
          security: requireScope('admin'),
          responses: {
            '200': jsonResponse('The rules (empty when none are configured).', categoryRuleSet),
            ...problems({ 401: true, 403: true, 429: true }),
          },
        },
        put: {
          operationId: 'putCategoryRules',
          tags: ['Recorded-call analysis'],
          summary: "Replace the account's category rules",
          security: requireScope('admin'),
          requestBody: jsonBody(categoryRuleSet, {
            rules: {
              categories: [
                {
                  category: 'Retention',
                  subcategories: [{ name: 'Cancellation', phrases: ['cancel my subscription'] }],
                },
              ],
            },
          }),
          responses: {
            '200': jsonResponse('The rules as stored; they apply to analyses that end from now on.', categoryRuleSet),
            '400': problemResponse(400, 'The rules break the schema (`REQUEST.VALIDATION`).'),
            ...problems({ 401: true, 403: true, 413: true, 415: true, 429: true }),
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
    AnalysisNotFoundItem: analysisNotFoundItem,
    CategoryRuleSet: categoryRuleSet,
    RecordingAccepted: recordingAccepted,
  },
);

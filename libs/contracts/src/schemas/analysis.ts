import { type JsonSchema, nullable, text } from '../json-schema';
import { limits } from '../limits';
import { guid, guidPattern } from './common';

/** Path parameters of GET /conversation-analyzer/interactions/{guid}. */
export const analysisParams: JsonSchema = {
  type: 'object',
  required: ['guid'],
  properties: { guid: { ...guid, description: "Id of the recording's call." } },
  additionalProperties: false,
};

const transcript: JsonSchema = {
  type: 'boolean',
  default: false,
  description: 'true: include the transcript; false (default): transcript is null.',
};

/** Query of GET /conversation-analyzer/interactions/{guid}. */
export const analysisQuery: JsonSchema = {
  type: 'object',
  properties: { transcript },
  additionalProperties: false,
};

/** A comma-separated list of 1 to 50 call GUIDs. */
export const callsList: JsonSchema = {
  type: 'string',
  pattern: `^${guidPattern}(?:,${guidPattern}){0,${limits.maxCalls - 1}}$`,
  'x-message': `must be a comma-separated list of 1 to ${limits.maxCalls} call GUIDs (no spaces)`,
  description: `Comma-separated call GUIDs, at most ${limits.maxCalls}.`,
};

/** Query of GET /conversation-analyzer/interactions?calls=. */
export const analysisListQuery: JsonSchema = {
  type: 'object',
  required: ['calls'],
  properties: { calls: callsList, transcript },
  additionalProperties: false,
};

const seconds: JsonSchema = { type: 'number', minimum: 0 };

/** Seconds of the call by who was talking. */
export const callTimeBreakDown: JsonSchema = {
  type: 'object',
  description:
    'Seconds: only the agent talking, only the customer, nobody, both. Spelt callTimeBreakDown (as responses spell it).',
  required: ['agent', 'customer', 'silence', 'crossTalk'],
  properties: { agent: seconds, customer: seconds, silence: seconds, crossTalk: seconds },
};

const common = (categoryItem: JsonSchema): Record<string, JsonSchema> => ({
  categories: { type: 'array', items: categoryItem, maxItems: 100 },
  guid,
  status: { type: 'string', enum: ['processing', 'processed', 'failed'] },
  confidence: {
    type: ['string', 'null'],
    enum: ['High', 'Medium', 'Low', null],
    description: 'Confidence in the transcript, capitalised as existing clients read it; null until processed.',
  },
  callTimeBreakDown,
  transcript: {
    ...nullable({ type: 'string' }),
    description: 'The transcript when requested with transcript=true; otherwise null.',
  },
});

const requiredCommon = ['categories', 'guid', 'status', 'confidence', 'callTimeBreakDown', 'transcript'];

const nestedCategory: JsonSchema = {
  type: 'object',
  required: ['category', 'categories'],
  properties: {
    category: text(200),
    categories: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        required: ['name', 'matches'],
        properties: { name: text(200), matches: { type: 'string', maxLength: 1000 } },
      },
    },
  },
};

/** Recorded-call analysis item, version 1: categories carry subcategories (strings). */
export const analysisItemV1: JsonSchema = {
  type: 'object',
  required: requiredCommon,
  properties: common({
    type: 'object',
    required: ['category', 'subcategories'],
    properties: { category: text(200), subcategories: { type: 'array', items: text(200), maxItems: 100 } },
  }),
};

/** Recorded-call analysis item, version 2: categories carry nested categories of {name, matches}. */
export const analysisItemV2: JsonSchema = {
  type: 'object',
  required: requiredCommon,
  properties: common(nestedCategory),
};

/** Recorded-call analysis item, version 3: as version 2 plus the transcription language. */
export const analysisItemV3: JsonSchema = {
  type: 'object',
  required: [...requiredCommon, 'language'],
  properties: {
    ...common(nestedCategory),
    language: { ...nullable(text(20)), description: 'ISO code of the transcription language; null until processed.' },
  },
};

/** The analysis item schema of each version. */
export const analysisItemByVersion: Readonly<Record<1 | 2 | 3, JsonSchema>> = {
  1: analysisItemV1,
  2: analysisItemV2,
  3: analysisItemV3,
};

/** Query of PUT /conversation-analyzer/recordings/{guid}. */
export const recordingQuery: JsonSchema = {
  type: 'object',
  properties: {
    agentChannel: {
      type: 'string',
      enum: ['left', 'right'],
      default: 'left',
      description: 'Stereo WAV only: the channel carrying the agent (the other is the customer).',
    },
  },
  additionalProperties: false,
};

/** Answer of PUT /conversation-analyzer/recordings/{guid} (202). */
export const recordingAccepted: JsonSchema = {
  type: 'object',
  required: ['guid', 'recordingId', 'status'],
  properties: { guid, recordingId: guid, status: { type: 'string', const: 'processing' } },
};

/** The list endpoint's entry for a GUID the account has no recording of. */
export const analysisNotFoundItem: JsonSchema = {
  type: 'object',
  required: ['guid', 'error'],
  description: 'Stands in request order for a GUID the account has no recorded call of.',
  properties: {
    guid,
    error: {
      type: 'object',
      required: ['status', 'code', 'title'],
      properties: {
        status: { type: 'integer', const: 404 },
        code: { type: 'string', const: 'ANALYSIS.UNKNOWN_CALL' },
        title: { type: 'string' },
      },
    },
  },
};

const phrase: JsonSchema = { type: 'string', minLength: 1, maxLength: 200, pattern: '[\\p{L}\\p{N}]' };

/** Body (and answer) of PUT /admin/analysis/categories: the account's category rules, replaced whole. */
export const categoryRuleSet: JsonSchema = {
  type: 'object',
  required: ['categories'],
  additionalProperties: false,
  properties: {
    categories: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        required: ['category', 'subcategories'],
        additionalProperties: false,
        properties: {
          category: text(200),
          subcategories: {
            type: 'array',
            minItems: 1,
            maxItems: 100,
            items: {
              type: 'object',
              required: ['name', 'phrases'],
              additionalProperties: false,
              properties: {
                name: text(200),
                phrases: {
                  type: 'array',
                  minItems: 1,
                  maxItems: 100,
                  items: phrase,
                  description:
                    'Matched as whole words on the normalized transcript (case, punctuation and apostrophes ignored).',
                },
              },
            },
          },
        },
      },
    },
  },
};

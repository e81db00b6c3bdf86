import { type JsonSchema, text } from '../json-schema';
import { limits } from '../limits';
import { count, dateTime, pageMeta, pagingQueryProperties, utcMillis, windowQueryProperties } from './common';

/** Query of GET /stats/wfm/agent-summaries. */
export const agentSummariesQuery: JsonSchema = {
  type: 'object',
  required: ['start'],
  properties: {
    ...windowQueryProperties,
    cadence: {
      type: 'number',
      const: limits.cadenceMinutes,
      default: limits.cadenceMinutes,
      description:
        'Minutes each summary covers; 15 is the only value. The spec marks it required and also gives it a default: this suite accepts it omitted (15).',
    },
    agentId: text(100, { description: 'Only this agent.' }),
    revisedSince: {
      ...dateTime,
      description:
        "Only summaries an event changed at or after this time (this suite's addition). Pass the `upTo` of an earlier response, with a `start` as far back as you keep data, to fetch the buckets revised since (late events).",
    },
    ...pagingQueryProperties,
  },
  additionalProperties: false,
};

const directions = {
  inbound: count,
  outbound: count,
  internal: count,
};

const timeEntry = (types: string[]): JsonSchema => ({
  type: 'object',
  required: ['type', 'totalTime', 'inbound', 'outbound', 'internal'],
  properties: { type: { type: 'string', enum: types }, totalTime: count, ...directions },
});

const countEntry = (types: string[]): JsonSchema => ({
  type: 'object',
  required: ['type', 'count', 'inbound', 'outbound', 'internal'],
  properties: { type: { type: 'string', enum: types }, count, ...directions },
});

/** One agent's activity over one 15-minute period. */
export const agentSummary: JsonSchema = {
  type: 'object',
  description:
    'Times (totalTime and the inbound/outbound/internal breakdown) are in seconds, rounded down; a state spanning periods is split at the boundaries.',
  required: ['agentId', 'timestamp', 'revision', 'interactions', 'presence'],
  properties: {
    agentId: text(100),
    revision: {
      type: 'integer',
      minimum: 1,
      description:
        "This suite's addition: grows each time an event changes the summary. A summary whose revision grew after you fetched it was revised by a late event; `revisedSince` finds such summaries.",
    },
    timestamp: {
      ...utcMillis,
      description: 'Start of the period: on the hour, quarter past, half past or quarter to.',
    },
    interactions: {
      type: 'object',
      required: ['handleTime', 'offered', 'actions'],
      properties: {
        handleTime: {
          type: 'array',
          items: timeEntry(['Ringing', 'Connected', 'Wrap', 'HeldExternalParty']),
          maxItems: 4,
          description: 'HeldExternalParty is time external parties spent held by the agent (a subset of Connected).',
        },
        offered: { type: 'array', items: countEntry(['Answered', 'Unexpected', 'Failed']), maxItems: 3 },
        actions: { type: 'array', items: countEntry(['HoldExternalParty']), maxItems: 1 },
      },
    },
    presence: {
      type: 'object',
      required: ['states'],
      properties: {
        states: {
          type: 'array',
          maxItems: 4,
          items: {
            type: 'object',
            required: ['type', 'totalTime', 'count'],
            properties: {
              type: { type: 'string', enum: ['Ready', 'Away', 'ExtendedAway', 'LoggedOut'] },
              totalTime: count,
              count: { ...count, description: 'Times the agent entered the state in the period.' },
            },
          },
        },
      },
    },
  },
};

/** The 200 body of GET /stats/wfm/agent-summaries. */
export const agentSummariesResponse: JsonSchema = {
  type: 'object',
  description: 'Items sorted by timestamp, descending. Agents who never logged in do not appear.',
  required: ['meta', 'items', 'upTo', 'cadence'],
  properties: {
    meta: pageMeta,
    items: { type: 'array', items: agentSummary, maxItems: limits.maxPageLimit },
    upTo: { ...utcMillis, description: 'Data is complete up to here; pass it as the next `start` when polling.' },
    cadence: { type: 'number', const: limits.cadenceMinutes },
  },
};

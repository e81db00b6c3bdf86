import { type JsonSchema, text } from '../json-schema';
import { limits } from '../limits';
import { count, dateTime, guid } from './common';

/** The v0 statistics record names. */
export const v0StatisticsNames = ['agentstates', 'outboundcalls', 'inboundcalls'] as const;

/** Path parameters of GET /v0/{accountKey}/statistics/{name}. */
export const v0StatisticsParams: JsonSchema = {
  type: 'object',
  required: ['accountKey', 'name'],
  properties: {
    accountKey: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      'x-message': 'must be 1 to 64 letters, digits, _ or -',
      description: 'The account key the v0 token was issued for.',
    },
    name: { type: 'string', enum: [...v0StatisticsNames] },
  },
  additionalProperties: false,
};

const notWith = (other: string): JsonSchema => ({ not: {}, 'x-message': `cannot be combined with ${other}` });

/** Query of the v0 statistics endpoints: exactly one of interval, latest=true, or start and end. */
export const v0StatisticsQuery: JsonSchema = {
  type: 'object',
  description: `Exactly one selection: \`interval\` (the last N minutes), \`latest=true\` (the latest record per agent or call within the last ${limits.maxV0WindowHours} hours), or \`start\` and \`end\` (at most ${limits.maxV0WindowHours} hours apart; checked by the service).`,
  properties: {
    interval: {
      type: 'integer',
      minimum: 1,
      maximum: 1440,
      description: 'The last N minutes (1 to 1440).',
    },
    latest: { type: 'boolean', const: true, 'x-message': 'must be true when given' },
    start: dateTime,
    end: dateTime,
  },
  additionalProperties: false,
  dependentRequired: { start: ['end'], end: ['start'] },
  dependentSchemas: {
    interval: { properties: { latest: notWith('interval'), start: notWith('interval'), end: notWith('interval') } },
    latest: { properties: { start: notWith('latest'), end: notWith('latest') } },
  },
  allOf: [
    {
      anyOf: [{ required: ['interval'] }, { required: ['latest'] }, { required: ['start'] }],
      'x-message': 'is required: give interval, latest=true, or start and end',
    },
  ],
};

const hms: JsonSchema = {
  type: 'string',
  pattern: '^\\d{2,}:[0-5]\\d:[0-5]\\d$',
  maxLength: 12,
  'x-message': 'must be hh:mm:ss',
  examples: ['00:01:05'],
};

/** v0 agent state record. */
export const v0AgentState: JsonSchema = {
  type: 'object',
  required: ['agentId', 'groupId', 'stateChangedAt', 'state', 'duration'],
  properties: {
    agentId: text(100),
    groupId: { type: ['string', 'null'], maxLength: 100 },
    stateChangedAt: dateTime,
    state: { ...text(100), examples: ['Ready', 'Busy Inbound'] },
    duration: hms,
    callGuid: guid,
  },
};

/** v0 outbound call record. */
export const v0OutboundCall: JsonSchema = {
  type: 'object',
  required: ['callGuid', 'callStartedAt', 'state', 'agentId', 'destination', 'ringDuration', 'duration'],
  properties: {
    callGuid: guid,
    callStartedAt: dateTime,
    state: text(100),
    agentId: text(100),
    destination: text(200),
    ringDuration: hms,
    duration: hms,
  },
};

/** v0 inbound call record (one per call event). */
export const v0InboundCall: JsonSchema = {
  type: 'object',
  required: [
    'connectedTo',
    'serviceName',
    'callGuid',
    'origin',
    'stateChangedAt',
    'sequence',
    'appletName',
    'event',
    'state',
    'duration',
  ],
  properties: {
    connectedTo: text(200),
    serviceName: { type: ['string', 'null'], maxLength: 200 },
    callGuid: guid,
    origin: text(200),
    stateChangedAt: dateTime,
    sequence: count,
    appletName: { type: ['string', 'null'], maxLength: 200 },
    event: { type: 'string', maxLength: 50, examples: ['Start', 'NewApplet', 'Queue', 'ACDDelivery', 'End'] },
    state: text(100),
    ringDuration: hms,
    duration: hms,
    additionalParameters: {
      type: 'object',
      additionalProperties: { type: 'string', maxLength: 1000 },
      maxProperties: 100,
    },
  },
};

/** 200 body of GET /v0/{accountKey}/statistics/agentstates. */
export const v0AgentStatesResponse: JsonSchema = {
  type: 'object',
  required: ['count', 'stats'],
  properties: { count, stats: { type: 'array', items: v0AgentState, maxItems: limits.maxPageLimit } },
};

/** 200 body of GET /v0/{accountKey}/statistics/outboundcalls. */
export const v0OutboundCallsResponse: JsonSchema = {
  type: 'object',
  required: ['count', 'calls'],
  properties: { count, calls: { type: 'array', items: v0OutboundCall, maxItems: limits.maxPageLimit } },
};

/** 200 body of GET /v0/{accountKey}/statistics/inboundcalls. */
export const v0InboundCallsResponse: JsonSchema = {
  type: 'object',
  required: ['count', 'calls'],
  properties: { count, calls: { type: 'array', items: v0InboundCall, maxItems: limits.maxPageLimit } },
};

/** Form body of POST /v0/oauth2/token (credentials in HTTP Basic: accountKey:apiToken). */
export const v0TokenRequest: JsonSchema = {
  type: 'object',
  properties: { grant_type: { type: 'string', const: 'client_credentials' } },
  additionalProperties: false,
};

/** 200 body of POST /v0/oauth2/token. */
export const v0TokenResponse: JsonSchema = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in'],
  properties: {
    access_token: { type: 'string', maxLength: 4096 },
    token_type: { type: 'string', const: 'bearer' },
    expires_in: { type: 'integer', const: 3600 },
  },
};

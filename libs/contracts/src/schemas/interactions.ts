import { type JsonSchema, nullable, text } from '../json-schema';
import { limits } from '../limits';
import { guid, name } from './common';

/** A client-supplied identifier (requestId, externalId): printable, at most 128 characters. */
export const identifier: JsonSchema = text(limits.maxIdentifier, {
  pattern: '^[^\\x00-\\x1F\\x7F-\\x9F]+$',
  'x-message': `must be 1 to ${limits.maxIdentifier} printable characters`,
});

/** Seconds from 0 to 2678399 (31 days minus one second). */
const seconds = (description: string): JsonSchema => ({
  type: 'integer',
  minimum: 0,
  maximum: limits.maxSeconds,
  description,
});

const shortValue = (description: string): JsonSchema => ({
  type: 'string',
  maxLength: limits.maxLinkedDataValue,
  pattern: '^[^\\x00-\\x1F\\x7F-\\x9F]*$',
  'x-message': 'must not contain control characters',
  description,
});

/** The `then` branch for one linkeddata type: its own properties, nothing else. */
function linkedDataType(type: string, properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return {
    if: { properties: { type: { const: type } }, required: ['type'] },
    // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword.
    then: {
      properties: { type: { const: type }, ...properties },
      required,
      additionalProperties: false,
    },
  };
}

/** One linkeddata item: `type` selects which other properties are allowed (clid, name, mediatype, url, interactionproperty). */
export const linkedDataItem: JsonSchema = {
  type: 'object',
  description:
    'Dynamic setting used while the route executes. `type` decides the other properties: clid, name and mediatype take `value` (at most 50 characters); url takes `label` and optional `value`; interactionproperty takes `key` and `value` (several may be given). When no mediatype item is given the media type is `API Object`. Data sources whose name contains spaces are best set with a data-connector applet rather than an interactionproperty.',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['clid', 'name', 'mediatype', 'url', 'interactionproperty'] },
  },
  allOf: [
    linkedDataType('clid', { value: shortValue('Identity of the caller, shown to the agent and recorded.') }, [
      'value',
    ]),
    linkedDataType('name', { value: shortValue('Display name of the interaction.') }, ['value']),
    linkedDataType('mediatype', { value: shortValue('Media type shown to the agent; default `API Object`.') }, [
      'value',
    ]),
    linkedDataType(
      'url',
      {
        label: text(100, { description: 'Label shown to the agent (also when value is omitted).' }),
        value: {
          type: 'string',
          format: 'uri',
          maxLength: 2048,
          'x-message': 'must be an absolute URL',
          description: 'A URL related to the interaction.',
        },
      },
      ['label'],
    ),
    linkedDataType(
      'interactionproperty',
      {
        key: text(limits.maxName, {
          pattern: '^[^\\x00-\\x1F\\x7F-\\x9F]+$',
          'x-message': 'must be 1 to 100 printable characters',
          description: 'Name the interaction plan refers to.',
        }),
        value: { type: 'string', maxLength: 1000, description: 'Value of the property.' },
      },
      ['key', 'value'],
    ),
  ],
};

/** A skill added to an interaction; expiryafter 0 makes it optional, omitted makes it mandatory. */
export const skillRequirement: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { ...name, description: 'Name of a configured skill; case-insensitive.' },
    expiryafter: seconds(
      'Seconds the skill stays required, counted from queue entry; at most 2678399 (31 days). 0 = optional (used for ranking); omitted = mandatory.',
    ),
  },
  additionalProperties: false,
};

/** The preferred agent: only this agent while logged in (loggedintimeout), a wait while logged out (loggedouttimeout). */
export const personalQueue: JsonSchema = {
  type: 'object',
  required: ['agent', 'loggedintimeout', 'loggedouttimeout'],
  properties: {
    agent: { ...name, description: 'Agent username; case-insensitive.' },
    loggedintimeout: seconds('Seconds the setting holds while the agent is logged in; at most 2678399.'),
    loggedouttimeout: seconds('Seconds the setting holds while the agent is logged out; at most 2678399.'),
  },
  additionalProperties: false,
};

/** The interaction type values: live (undivided attention), chat (possibly divided), nonlive (no continuous attention). */
export const interactionType: JsonSchema = {
  type: 'string',
  enum: ['live', 'chat', 'nonlive'],
  description:
    "`live` (full attention, e.g. a phone call; uses the agent's calls capacity), `chat` (immediate but possibly divided; semiLive capacity), `nonlive` (no continuous attention, e.g. an email; nonLive capacity). Omitted: nonlive.",
};

/** Routing hints: interaction type, skills, personal queue (all optional). */
export const routingData: JsonSchema = {
  type: 'object',
  properties: {
    interactiontype: interactionType,
    skills: { type: 'array', items: skillRequirement, maxItems: limits.maxSkills },
    personalqueue: personalQueue,
  },
  additionalProperties: false,
};

const notAllowedOnRelease: JsonSchema = { not: {}, 'x-message': 'is not allowed when action is release' };

/** One Interaction object of an Invocation: a dispatch (needs route) or a release (needs externalId). */
export const interaction: JsonSchema = {
  type: 'object',
  description:
    'A dispatch (default) routes the interaction through `route`; a release removes it by `externalId`. requestId and externalId may also be spelt `requestid` and `externalid`, but not both spellings in one object. An object repeating an earlier requestId is not processed again: its original outcome is returned. A dispatch without externalId cannot be released later.',
  properties: {
    action: { type: 'string', enum: ['dispatch', 'release'], default: 'dispatch' },
    requestId: { ...identifier, description: 'Unique id of this object; repeats are processed once.' },
    requestid: { ...identifier, description: 'Lower-case spelling of requestId.' },
    externalId: { ...identifier, description: 'Id of the interaction in the client system; needed for release.' },
    externalid: { ...identifier, description: 'Lower-case spelling of externalId.' },
    route: { ...name, description: 'Name of the route to invoke (dispatch).' },
    linkeddata: { type: 'array', items: linkedDataItem, maxItems: limits.maxLinkedDataItems },
    routingdata: routingData,
  },
  additionalProperties: false,
  dependentSchemas: {
    requestId: {
      properties: { requestid: { not: {}, 'x-message': 'must not be given together with requestId' } },
    },
    externalId: {
      properties: { externalid: { not: {}, 'x-message': 'must not be given together with externalId' } },
    },
  },
  if: { properties: { action: { const: 'release' } }, required: ['action'] },
  // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword.
  then: {
    allOf: [
      {
        anyOf: [{ required: ['externalId'] }, { required: ['externalid'] }],
        'x-message': 'is required when action is release',
      },
    ],
    properties: { route: notAllowedOnRelease, linkeddata: notAllowedOnRelease, routingdata: notAllowedOnRelease },
  },
  else: { required: ['route'], 'x-message': 'is required when action is dispatch' },
};

/** The body of POST /interactions/Invoke. */
export const invocation: JsonSchema = {
  type: 'object',
  description: `Interactions to dispatch or release. At most ${limits.maxRequestsPerInvoke} objects per request (chosen by this suite; the spec leaves it open). The whole body is validated first: if any object is invalid nothing is processed.`,
  required: ['requests'],
  properties: {
    provider: { ...name, description: 'Name of a provider registered through POST /interactions/Register.' },
    requests: { type: 'array', items: interaction, minItems: 1, maxItems: limits.maxRequestsPerInvoke },
  },
  additionalProperties: false,
};

/** The outcome of one Interaction object, in request order. */
export const invokeResult: JsonSchema = {
  type: 'object',
  required: ['index', 'action', 'requestId', 'externalId', 'interactionId', 'outcome', 'duplicate'],
  properties: {
    index: { type: 'integer', minimum: 0, description: 'Position of the object in `requests`.' },
    action: { type: 'string', enum: ['dispatch', 'release'] },
    requestId: nullable(identifier),
    externalId: nullable(identifier),
    interactionId: { ...nullable(guid), description: 'Id of the interaction (also the GUID used by statistics).' },
    outcome: {
      type: 'string',
      enum: ['queued', 'released', 'not-found'],
      description:
        '`queued`: dispatched and waiting for an agent; `released`: removed from the queue or ended for its agent; `not-found`: no live interaction has this externalId for this provider.',
    },
    duplicate: {
      type: 'boolean',
      description:
        'True when the requestId was seen before: nothing was processed and the original outcome is returned.',
    },
  },
};

/** The 202 body of POST /interactions/Invoke: one result per request object. */
export const invokeResponse: JsonSchema = {
  type: 'object',
  required: ['results'],
  properties: { results: { type: 'array', items: invokeResult, maxItems: limits.maxRequestsPerInvoke } },
};

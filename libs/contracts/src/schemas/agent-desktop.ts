import { type JsonSchema, nullable, text } from '../json-schema';
import { presenceState } from './admin';
import { guid, name, utcMillis } from './common';
import { interactionType, linkedDataItem } from './interactions';
import { effectivePermissions } from './providers';

/** Path parameters naming an agent. */
export const agentParams: JsonSchema = {
  type: 'object',
  required: ['agentId'],
  properties: { agentId: guid },
  additionalProperties: false,
};

/** Path parameters naming an agent's offer. */
export const offerParams: JsonSchema = {
  type: 'object',
  required: ['agentId', 'offerId'],
  properties: { agentId: guid, offerId: guid },
  additionalProperties: false,
};

/** Path parameters naming an agent's interaction. */
export const agentInteractionParams: JsonSchema = {
  type: 'object',
  required: ['agentId', 'interactionId'],
  properties: { agentId: guid, interactionId: guid },
  additionalProperties: false,
};

/** Body of PUT /agent-desktop/agents/{agentId}/presence. */
export const presenceUpdate: JsonSchema = {
  type: 'object',
  required: ['presence'],
  properties: { presence: presenceState, reason: text(200) },
  additionalProperties: false,
};

/** An agent's presence. */
export const presenceView: JsonSchema = {
  type: 'object',
  required: ['agentId', 'presence', 'eligibleForRouting', 'since'],
  properties: {
    agentId: guid,
    presence: presenceState,
    reason: nullable(text(200)),
    eligibleForRouting: { type: 'boolean', description: 'True only in Ready.' },
    since: utcMillis,
  },
};

/** An offer ringing at an agent. */
export const offer: JsonSchema = {
  type: 'object',
  required: ['offerId', 'interactionId', 'interactionType', 'offeredAt', 'expiresAt', 'linkeddata'],
  properties: {
    offerId: guid,
    interactionId: guid,
    interactionType,
    route: nullable(name),
    provider: nullable(name),
    offeredAt: utcMillis,
    expiresAt: {
      ...utcMillis,
      description: 'Unanswered by then: the offer times out (counted Unexpected) and the interaction is requeued.',
    },
    linkeddata: { type: 'array', items: linkedDataItem, maxItems: 50 },
  },
};

/** An interaction assigned to an agent. */
export const agentInteraction: JsonSchema = {
  type: 'object',
  required: ['interactionId', 'state', 'interactionType', 'since', 'permissions'],
  properties: {
    interactionId: guid,
    externalId: nullable(text(128)),
    provider: nullable(name),
    state: { type: 'string', enum: ['connected', 'held', 'wrap'] },
    interactionType,
    since: utcMillis,
    permissions: { ...effectivePermissions, description: 'What the provider permits the agent to do.' },
    linkeddata: { type: 'array', items: linkedDataItem, maxItems: 50 },
  },
};

/** Body of POST .../interactions/{interactionId}/transfer: exactly one target, an agent or a route. */
export const transferRequest: JsonSchema = {
  type: 'object',
  properties: {
    agent: { ...name, description: 'Username of the target agent; case-insensitive.' },
    route: { ...name, description: 'Name of the target route.' },
  },
  additionalProperties: false,
  dependentSchemas: {
    agent: { properties: { route: { not: {}, 'x-message': 'cannot be combined with agent' } } },
  },
  allOf: [
    {
      anyOf: [{ required: ['agent'] }, { required: ['route'] }],
      'x-message': 'is required: name one target, agent or route',
    },
  ],
};

/** An empty body for the agent actions that take none (accept, reject, hold, retrieve, end wrap, release). */
export const emptyBody: JsonSchema = { type: 'object', additionalProperties: false };

import { type JsonSchema, nullable, text } from '../../json-schema';
import { guid, millis, name, utcMillis } from '../common';
import { interactionType } from '../interactions';

const presence: JsonSchema = { type: 'string', enum: ['Ready', 'Away', 'ExtendedAway', 'LoggedOut'] };
const workload: JsonSchema = {
  type: 'object',
  required: ['calls', 'semiLive', 'nonLive'],
  properties: {
    calls: { type: 'integer', minimum: 0 },
    semiLive: { type: 'integer', minimum: 0 },
    nonLive: { type: 'integer', minimum: 0 },
  },
};

const core: Record<string, JsonSchema> = {
  agentId: guid,
  agentUsername: name,
  occurredAt: { ...utcMillis, description: 'When it happened (equals the envelope time).' },
  sequence: { type: 'integer', minimum: 1, description: 'Increases by one per event of this agent.' },
};
const coreRequired = ['agentId', 'agentUsername', 'occurredAt', 'sequence'];

/** agent-activity.presence-changed: the agent entered a presence state; the previous one is closed with its duration. */
export const presenceChanged: JsonSchema = {
  type: 'object',
  description:
    'The agent entered `presence`. `previous` closes the state left (null at the first login), so statistics can write a Presence item and summaries can split its time over 15-minute periods.',
  required: [...coreRequired, 'presence', 'eligibleForRouting', 'reason', 'previous'],
  properties: {
    ...core,
    presence,
    eligibleForRouting: { type: 'boolean', description: 'True only in Ready.' },
    reason: nullable(text(200)),
    previous: {
      type: ['object', 'null'],
      required: ['presence', 'eligibleForRouting', 'startedAt', 'durationMs'],
      properties: {
        presence,
        eligibleForRouting: { type: 'boolean' },
        reason: nullable(text(200)),
        startedAt: utcMillis,
        durationMs: millis,
      },
    },
  },
};

/** agent-activity.workload-changed: the agent's concurrent work per interaction type changed. */
export const workloadChanged: JsonSchema = {
  type: 'object',
  description: "The agent's workload (interactions held per type) changed; `previous` closes the former workload.",
  required: [...coreRequired, 'workload', 'capacity', 'previous'],
  properties: {
    ...core,
    workload,
    capacity: workload,
    previous: {
      type: ['object', 'null'],
      required: ['workload', 'startedAt', 'durationMs'],
      properties: { workload, startedAt: utcMillis, durationMs: millis },
    },
  },
};

const segment: JsonSchema = {
  type: 'string',
  enum: ['Ringing', 'Connected', 'Wrap', 'HeldExternalParty'],
  description: 'HeldExternalParty runs inside Connected (an external party held by the agent).',
};

const interactionRef: JsonSchema = {
  type: 'object',
  required: ['guid', 'medium', 'mediumManager', 'direction', 'interactionType'],
  properties: {
    guid,
    medium: { type: 'string', maxLength: 50 },
    mediumManager: { type: 'string', maxLength: 50 },
    direction: { type: 'string', enum: ['Inbound', 'Outbound', 'Internal'] },
    interactionType,
  },
};

/** agent-activity.segment-started: the agent entered an interaction state (Ringing, Connected, Wrap, HeldExternalParty). */
export const segmentStarted: JsonSchema = {
  type: 'object',
  description: 'The agent entered an interaction state. A HeldExternalParty start counts one HoldExternalParty action.',
  required: [...coreRequired, 'segment', 'startedAt', 'interaction', 'channel'],
  properties: {
    ...core,
    segment,
    startedAt: utcMillis,
    interaction: interactionRef,
    channel: { type: 'object', required: ['guid'], properties: { guid } },
  },
};

/** agent-activity.segment-ended: an interaction state of the agent ended, with its exact duration and, for Ringing, the offer outcome. */
export const segmentEnded: JsonSchema = {
  type: 'object',
  description:
    'An interaction state of the agent ended. For Ringing, `outcome` is the offer outcome (Answered, Unexpected, Failed); null for the other segments.',
  required: [...coreRequired, 'segment', 'startedAt', 'endedAt', 'durationMs', 'interaction', 'channel', 'outcome'],
  properties: {
    ...core,
    segment,
    startedAt: utcMillis,
    endedAt: utcMillis,
    durationMs: millis,
    status: { type: 'string', maxLength: 50, examples: ['Completed'] },
    interaction: interactionRef,
    channel: { type: 'object', required: ['guid'], properties: { guid } },
    outcome: { type: ['string', 'null'], enum: ['Answered', 'Unexpected', 'Failed', null] },
  },
};

/** Data schema of each agent-activity event type. */
export const agentActivityEvents = {
  'agent-activity.presence-changed': presenceChanged,
  'agent-activity.workload-changed': workloadChanged,
  'agent-activity.segment-started': segmentStarted,
  'agent-activity.segment-ended': segmentEnded,
} as const satisfies Record<string, JsonSchema>;

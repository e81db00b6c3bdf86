import { type JsonSchema, nullable, text } from '../../json-schema';
import { limits } from '../../limits';
import { guid, millis, name, utcMillis } from '../common';
import { identifier, interactionType, linkedDataItem } from '../interactions';

const direction: JsonSchema = { type: 'string', enum: ['Inbound', 'Outbound', 'Internal'] };

/** Fields every interaction event carries, so each event can be read on its own. */
const core: Record<string, JsonSchema> = {
  interactionId: { ...guid, description: 'Id of the interaction; also the call GUID of statistics and analysis.' },
  conversationId: guid,
  externalId: nullable(identifier),
  provider: nullable(name),
  interactionType,
  medium: { type: 'string', maxLength: 50, examples: ['Phone', 'Chat', 'Email', 'ApiObject'] },
  mediumManager: { type: 'string', maxLength: 50, examples: ['CC'] },
  direction,
  occurredAt: { ...utcMillis, description: 'When it happened (equals the envelope time).' },
  sequence: { type: 'integer', minimum: 1, description: 'Increases by one per event of this interaction.' },
};

const coreRequired = [
  'interactionId',
  'conversationId',
  'externalId',
  'provider',
  'interactionType',
  'medium',
  'mediumManager',
  'direction',
  'occurredAt',
  'sequence',
];

const agentFields: Record<string, JsonSchema> = {
  agentId: guid,
  agentUsername: name,
  channelId: { ...guid, description: "The agent's channel (leg) of the interaction." },
};

function interactionEvent(description: string, properties: Record<string, JsonSchema>, required: string[]) {
  return {
    type: 'object',
    description,
    required: [...coreRequired, ...required],
    properties: { ...core, ...properties },
  } satisfies JsonSchema;
}

/** interaction.queued: a dispatch was accepted and the interaction entered routing. */
export const interactionQueued = interactionEvent(
  'A dispatched interaction entered routing. Carries everything statistics needs for the record header.',
  {
    requestId: nullable(identifier),
    route: name,
    interactionPlan: name,
    reportingGroup: nullable(text(200)),
    serviceName: nullable(text(200)),
    connectTo: nullable(text(200)),
    connectFrom: nullable(text(200)),
    interactionPlanMapping: {
      type: 'object',
      required: ['addressName', 'mappingName', 'interactionPlanName'],
      properties: {
        addressName: nullable(text(200)),
        mappingName: nullable(text(200)),
        interactionPlanName: nullable(text(200)),
      },
    },
    linkeddata: { type: 'array', items: linkedDataItem, maxItems: limits.maxLinkedDataItems },
    skills: {
      type: 'array',
      maxItems: limits.maxSkills,
      items: {
        type: 'object',
        required: ['name', 'expiryafter'],
        properties: { name, expiryafter: { type: ['integer', 'null'], minimum: 0, maximum: limits.maxSeconds } },
      },
    },
    personalQueue: {
      type: ['object', 'null'],
      required: ['agent', 'loggedintimeout', 'loggedouttimeout'],
      properties: {
        agent: name,
        loggedintimeout: { type: 'integer', minimum: 0, maximum: limits.maxSeconds },
        loggedouttimeout: { type: 'integer', minimum: 0, maximum: limits.maxSeconds },
      },
    },
  },
  ['requestId', 'route', 'interactionPlan', 'skills', 'personalQueue'],
);

/** interaction.applet-executed: one applet of the plan ran (InteractionPlan, Applet, DataSourceValueAcquired, Queue events of statistics). */
export const interactionAppletExecuted = interactionEvent(
  'An applet of the interaction plan ran. The first applet of a plan marks the InteractionPlan event.',
  {
    interactionPlan: name,
    reportingGroup: nullable(text(200)),
    applet: {
      type: 'object',
      required: ['name', 'type'],
      properties: {
        name,
        type: { type: 'string', maxLength: 50, examples: ['SetDataSource', 'SkillTagger', 'Queue', 'CallRecording'] },
      },
    },
    startedAt: utcMillis,
    durationMs: millis,
    dataSource: {
      type: ['object', 'null'],
      required: ['name', 'value'],
      properties: { name: text(200), value: nullable({ type: 'string', maxLength: 1000 }) },
    },
    queue: {
      type: ['object', 'null'],
      required: ['virtualQueues', 'presentedSkills'],
      properties: {
        virtualQueues: { type: 'array', items: text(200), maxItems: 100 },
        presentedSkills: { type: 'array', items: text(200), maxItems: 100 },
        result: { type: ['string', 'null'], enum: ['Delivered', 'TimedOut', 'Released', null] },
      },
    },
  },
  ['interactionPlan', 'applet', 'startedAt', 'durationMs'],
);

/** interaction.offered: routing chose an agent; the offer rings (Ringing starts). */
export const interactionOffered = interactionEvent(
  'Routing chose an agent and the offer rings at the agent desktop (Ringing begins).',
  {
    ...agentFields,
    offerId: guid,
    expiresAt: utcMillis,
    rule: { type: 'string', maxLength: 100, examples: ['personal-queue', 'longest-idle'] },
    attempt: { type: 'integer', minimum: 1, description: 'Offers made for this interaction so far.' },
  },
  ['agentId', 'agentUsername', 'channelId', 'offerId', 'expiresAt', 'rule', 'attempt'],
);

/**
 * What the provider's notifications name, on the events the notifier sends them for, so that each can be read alone
 * (its interaction.queued may not be consumed yet). Optional: events published before they were added lack them.
 */
const notificationFields: Record<string, JsonSchema> = {
  route: {
    ...name,
    description:
      'The route the interaction was dispatched through (as on interaction.queued; a transfer does not change it).',
  },
  requestId: { ...nullable(identifier), description: "The Invoke request's requestId (as on interaction.queued)." },
};

/** interaction.assigned: the agent accepted the offer; the interaction is the agent's (Connected starts). */
export const interactionAssigned = interactionEvent(
  'The agent accepted the offer (this is the "accepted" event): the interaction is assigned and Connected begins. The notifier sends AssignToAgent on it.',
  { ...agentFields, ...notificationFields, offerId: guid, ringingMs: millis },
  ['agentId', 'agentUsername', 'channelId', 'offerId', 'ringingMs'],
);

/** interaction.rejected: an offer was rejected, timed out or failed; the interaction is requeued. */
export const interactionRejected = interactionEvent(
  'An offer ended without acceptance; the interaction is requeued. `outcome` is how agent summaries count the offer.',
  {
    ...agentFields,
    offerId: guid,
    ringingMs: millis,
    reason: { type: 'string', enum: ['rejected', 'timed-out', 'agent-unavailable', 'system-failure'] },
    outcome: {
      type: 'string',
      enum: ['Unexpected', 'Failed'],
      description: 'Unexpected: agent behaviour (rejected, not answered); Failed: system failure.',
    },
  },
  ['agentId', 'agentUsername', 'channelId', 'offerId', 'ringingMs', 'reason', 'outcome'],
);

/** interaction.held: the agent held the external party (or parked a nonlive interaction). */
export const interactionHeld = interactionEvent('The agent held the external party.', agentFields, [
  'agentId',
  'agentUsername',
  'channelId',
]);

/** interaction.retrieved: the agent retrieved the held party. */
export const interactionRetrieved = interactionEvent(
  'The agent retrieved the held party.',
  { ...agentFields, heldMs: millis },
  ['agentId', 'agentUsername', 'channelId', 'heldMs'],
);

/** interaction.transferred: the agent transferred the interaction to another agent or a route. */
export const interactionTransferred = interactionEvent(
  'The agent transferred the interaction; it is requeued for the target (an agent as personal queue, or a route).',
  {
    ...agentFields,
    target: {
      type: 'object',
      required: ['kind'],
      properties: {
        kind: { type: 'string', enum: ['agent', 'route'] },
        agentUsername: name,
        route: name,
      },
    },
  },
  ['agentId', 'agentUsername', 'channelId', 'target'],
);

/** interaction.wrap-started: the conversation ended and the agent is in wrap (Connected ends, Wrap starts). */
export const interactionWrapStarted = interactionEvent(
  'The conversation ended and the agent entered wrap.',
  { ...agentFields, connectedMs: millis },
  ['agentId', 'agentUsername', 'channelId', 'connectedMs'],
);

/** interaction.wrap-ended: the agent finished wrap. */
export const interactionWrapEnded = interactionEvent(
  "The agent ended wrap; the agent's work on the interaction is over.",
  { ...agentFields, wrapMs: millis },
  ['agentId', 'agentUsername', 'channelId', 'wrapMs'],
);

/** interaction.released: the interaction left the system, with who released it. */
export const interactionReleased = interactionEvent(
  'The interaction was released: by the agent, by API (release action) or by the system. The notifier sends Release when an agent had it.',
  {
    ...notificationFields,
    releasedBy: { type: 'string', enum: ['agent', 'api', 'system'] },
    agentId: nullable(guid),
    agentUsername: nullable(name),
    channelId: nullable(guid),
    previousState: { type: 'string', enum: ['queued', 'offered', 'connected', 'held', 'wrap'] },
    endReason: { type: 'string', maxLength: 50, examples: ['Released'] },
    durationMs: { ...millis, description: 'From queued to released.' },
  },
  ['releasedBy', 'agentId', 'agentUsername', 'channelId', 'previousState', 'endReason', 'durationMs'],
);

/** interaction.recorded: a recording of the interaction is available for analysis. */
export const interactionRecorded = interactionEvent(
  'A recording of the interaction is complete; analysis consumes it. Segments say who spoke when (and what, when transcribed upstream).',
  {
    recordingId: guid,
    agentId: nullable(guid),
    startedAt: utcMillis,
    durationMs: millis,
    language: nullable(text(20)),
    segments: {
      type: 'array',
      maxItems: 5000,
      items: {
        type: 'object',
        required: ['speaker', 'startMs', 'endMs'],
        properties: {
          speaker: { type: 'string', enum: ['agent', 'customer'] },
          startMs: millis,
          endMs: millis,
          text: { type: 'string', maxLength: 10000 },
        },
      },
    },
  },
  ['recordingId', 'agentId', 'startedAt', 'durationMs', 'segments'],
);

/** Data schema of each interaction event type. */
export const interactionEvents = {
  'interaction.queued': interactionQueued,
  'interaction.applet-executed': interactionAppletExecuted,
  'interaction.offered': interactionOffered,
  'interaction.assigned': interactionAssigned,
  'interaction.rejected': interactionRejected,
  'interaction.held': interactionHeld,
  'interaction.retrieved': interactionRetrieved,
  'interaction.transferred': interactionTransferred,
  'interaction.wrap-started': interactionWrapStarted,
  'interaction.wrap-ended': interactionWrapEnded,
  'interaction.released': interactionReleased,
  'interaction.recorded': interactionRecorded,
} as const satisfies Record<string, JsonSchema>;

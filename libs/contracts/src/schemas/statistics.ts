import { type JsonSchema, nullable, text } from '../json-schema';
import { guid, millis, pageOf, pagingQueryProperties, utcMillis, windowQueryProperties } from './common';

/** Which records a window selects: started in it (default), started or ended in it, or processed in it. */
export const include: JsonSchema = {
  type: 'string',
  enum: ['Started', 'StartedOrEnded', 'Processed'],
  default: 'Started',
  description:
    '`Started`: records that started in the window (default); `StartedOrEnded`: started or ended in it; `Processed`: recorded by the service in it (for incremental polling with `upTo`).',
};

/** Query of GET /stats/agent-activities. */
export const agentActivitiesQuery: JsonSchema = {
  type: 'object',
  required: ['start'],
  properties: {
    ...windowQueryProperties,
    include,
    agentId: text(100, { description: 'Only this agent.' }),
    type: { type: 'string', enum: ['Presence', 'Workload', 'Interaction'], description: 'Only this activity type.' },
    ...pagingQueryProperties,
  },
  additionalProperties: false,
};

/** Query of GET /stats/interactions. */
export const statsInteractionsQuery: JsonSchema = {
  type: 'object',
  required: ['start'],
  properties: { ...windowQueryProperties, include, ...pagingQueryProperties },
  additionalProperties: false,
};

const openEnum = (seen: string[]): JsonSchema => ({
  type: 'string',
  maxLength: 50,
  examples: seen,
  description: `Open enumeration; values seen: ${seen.join(', ')}.`,
});

/** One agent activity: a Presence, Workload or Interaction segment. */
export const agentActivity: JsonSchema = {
  type: 'object',
  required: [
    'agentId',
    'type',
    'category',
    'name',
    'eligibleForRouting',
    'start',
    'status',
    'duration',
    'reason',
    'interaction',
    'channel',
    'workload',
  ],
  properties: {
    agentId: text(100),
    type: { type: 'string', enum: ['Presence', 'Workload', 'Interaction'] },
    category: {
      ...nullable(openEnum(['Ready', 'Away', 'ExtendedAway', 'LoggedOut', 'Ringing', 'Connected', 'Wrap'])),
      description: 'Presence state (Presence) or interaction state (Interaction); null for Workload.',
    },
    name: { ...nullable(text(100)), description: 'Presence state name; null otherwise.' },
    eligibleForRouting: { type: ['boolean', 'null'], description: 'Set for Presence items.' },
    start: utcMillis,
    status: { ...nullable(openEnum(['Completed', 'InProgress'])), description: 'Set for Interaction items.' },
    duration: millis,
    reason: { ...nullable(text(200)), description: 'Presence reason when one was given; otherwise null.' },
    interaction: {
      type: ['object', 'null'],
      required: ['guid', 'medium', 'mediumManager', 'direction'],
      properties: {
        guid,
        medium: openEnum(['Phone', 'Chat', 'Email', 'ApiObject']),
        mediumManager: openEnum(['CC']),
        direction: openEnum(['Inbound', 'Outbound', 'Internal']),
      },
    },
    channel: {
      type: ['object', 'null'],
      required: ['guid'],
      properties: { guid: nullable(guid) },
    },
    workload: {
      type: ['object', 'null'],
      required: ['calls', 'semiLive', 'nonLive'],
      properties: {
        calls: { type: 'integer', minimum: 0 },
        semiLive: { type: 'integer', minimum: 0 },
        nonLive: { type: 'integer', minimum: 0 },
      },
    },
  },
};

/** One event of a channel of an interaction record. */
export const channelEvent: JsonSchema = {
  type: 'object',
  description:
    'Ringing, Connected, Wrap, CallRecording: name and properties null. InteractionPlan: name = plan, properties.reportingGroup. Applet: name = applet, properties.appletType. DataSourceValueAcquired: name = data source, properties.value. Queue: name = queue, properties {interactionPlan, virtualQueues, presentedSkills, result}.',
  required: ['type', 'offset', 'name', 'duration', 'properties'],
  properties: {
    type: openEnum([
      'Ringing',
      'Connected',
      'Wrap',
      'CallRecording',
      'InteractionPlan',
      'Applet',
      'DataSourceValueAcquired',
      'Queue',
      'Held',
    ]),
    offset: { ...millis, description: 'Milliseconds from the interaction start.' },
    name: nullable(text(200)),
    duration: millis,
    properties: {
      type: ['object', 'null'],
      properties: {
        reportingGroup: nullable(text(200)),
        appletType: openEnum([
          'Announcement',
          'CallRecording',
          'Menu',
          'SkillTagger',
          'SetDataSource',
          'DataRetriever',
          'ACD',
        ]),
        value: nullable({ type: 'string', maxLength: 1000 }),
        interactionPlan: nullable(text(200)),
        virtualQueues: { type: 'array', items: text(200), maxItems: 100 },
        presentedSkills: { type: 'array', items: text(200), maxItems: 100 },
        result: openEnum(['Delivered', 'TimedOut', 'Released']),
      },
    },
  },
};

/** One channel (a party's leg) of an interaction record. */
export const channel: JsonSchema = {
  type: 'object',
  required: ['guid', 'offset', 'duration', 'endReason', 'party', 'events'],
  properties: {
    guid,
    offset: { ...millis, description: 'Milliseconds from the interaction start.' },
    duration: millis,
    endReason: nullable(openEnum(['Released', 'Transferred', 'Rejected', 'TimedOut', 'Failed'])),
    party: {
      type: 'object',
      required: ['id', 'role', 'touchpoint'],
      properties: {
        id: nullable(text(100)),
        role: openEnum(['Agent', 'External', 'System']),
        touchpoint: nullable(text(200)),
      },
    },
    events: { type: 'array', items: channelEvent, maxItems: 1000 },
  },
};

/** One interaction (call) record of the statistics API. */
export const interactionRecord: JsonSchema = {
  type: 'object',
  required: [
    'guid',
    'conversationGuid',
    'status',
    'medium',
    'mediumManager',
    'start',
    'duration',
    'direction',
    'serviceName',
    'connectTo',
    'connectFrom',
    'interactionPlanMapping',
    'channels',
  ],
  properties: {
    status: openEnum(['Completed', 'InProgress']),
    medium: openEnum(['Phone', 'Chat', 'Email', 'ApiObject']),
    mediumManager: openEnum(['CC']),
    start: utcMillis,
    guid: { ...guid, description: 'Interaction (call) id; also the GUID recorded-call analysis takes.' },
    conversationGuid: guid,
    duration: millis,
    direction: openEnum(['Inbound', 'Outbound', 'Internal']),
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
    channels: { type: 'array', items: channel, maxItems: 100 },
  },
};

/** The 200 body of GET /stats/agent-activities. */
export const agentActivitiesResponse: JsonSchema = pageOf(agentActivity, 'Agent activities, oldest first.');

/** The 200 body of GET /stats/interactions. */
export const statsInteractionsResponse: JsonSchema = pageOf(interactionRecord, 'Interaction records, oldest first.');

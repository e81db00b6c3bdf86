import type { JsonSchema } from '../../json-schema';
import { accountEvents } from './account';
import { agentActivityEvents } from './agent-activity';
import { analysisEvents } from './analysis';
import { interactionEvents } from './interaction';
import { notificationDeliveryEvents } from './notification-delivery';
import { providerEvents } from './provider';

export * from './account';
export * from './agent-activity';
export * from './analysis';
export * from './envelope';
export * from './interaction';
export * from './notification-delivery';
export * from './provider';

/** Data schema of every event type, keyed by the CloudEvents `type`. */
export const eventSchemas = {
  ...providerEvents,
  ...interactionEvents,
  ...agentActivityEvents,
  ...analysisEvents,
  ...notificationDeliveryEvents,
  ...accountEvents,
} as const satisfies Record<string, JsonSchema>;

/** A CloudEvents `type` of the suite. */
export type EventType = keyof typeof eventSchemas;

/** How one topic is produced, keyed and consumed. */
export interface TopicInfo {
  /** Event types carried, in the order they are documented. */
  readonly eventTypes: readonly EventType[];
  /** The owning (only) producer service. */
  readonly producer: string;
  /** Consumer services (each with its own group), for the docs. */
  readonly consumers: readonly string[];
  /** What the `<entityId>` of the `<accountId>:<entityId>` key and the CloudEvents `subject` are. */
  readonly entity: string;
  readonly description: string;
}

/** Every Kafka topic of the suite with its event types, producer, consumers and key. */
export const topicCatalog = {
  'cc.provider.v1': {
    eventTypes: Object.keys(providerEvents) as EventType[],
    producer: 'provider-registry',
    consumers: ['routing', 'notifier'],
    entity: 'provider name',
    description:
      'Provider registrations (event-carried state: each event holds the full state; header values and signing secrets only sealed for the notifier).',
  },
  'cc.interaction.v1': {
    eventTypes: Object.keys(interactionEvents) as EventType[],
    producer: 'routing',
    consumers: ['notifier', 'statistics', 'analysis'],
    entity: 'interactionId',
    description:
      'Interaction lifecycle, in order per interaction (one key): queued → applet-executed* → offered → assigned | rejected → held/retrieved/transferred → wrap-started → wrap-ended → released; recorded when a recording completes.',
  },
  'cc.agent-activity.v1': {
    eventTypes: Object.keys(agentActivityEvents) as EventType[],
    producer: 'routing',
    consumers: ['summaries', 'statistics'],
    entity: 'agentId',
    description:
      'Agent presence, workload and interaction segments with millisecond timestamps and durations: every field of agent summaries and statistics agent activities can be computed from them alone.',
  },
  'cc.analysis.v1': {
    eventTypes: Object.keys(analysisEvents) as EventType[],
    producer: 'analysis',
    consumers: [],
    entity: 'call guid',
    description: 'Recorded-call analysis progress and results, for subscribing teams.',
  },
  'cc.notification-delivery.v1': {
    eventTypes: Object.keys(notificationDeliveryEvents) as EventType[],
    producer: 'notifier',
    consumers: [],
    entity: 'interactionId (endpoint-disabled: provider name)',
    description: 'Outcomes of provider notification deliveries, for monitoring and subscribing teams.',
  },
  'cc.account.v1': {
    eventTypes: Object.keys(accountEvents) as EventType[],
    producer: 'gateway',
    consumers: ['summaries', 'analysis', 'statistics'],
    entity: 'accountId (key `<accountId>:<accountId>`)',
    description: 'Account settings that services keep a read model of: feature flags.',
  },
} as const satisfies Record<string, TopicInfo>;

/** A topic name of the suite. */
export type TopicName = keyof typeof topicCatalog;

/** The event types each topic carries, keyed by topic name. */
export const topics: Readonly<Record<TopicName, readonly EventType[]>> = Object.fromEntries(
  Object.entries(topicCatalog).map(([topic, info]) => [topic, info.eventTypes]),
) as unknown as Record<TopicName, readonly EventType[]>;

/** The topic an event type is published on. */
export function topicOf(type: EventType): TopicName {
  for (const [topic, info] of Object.entries(topicCatalog)) {
    if ((info.eventTypes as readonly string[]).includes(type)) return topic as TopicName;
  }
  throw new Error(`Unknown event type ${type}`);
}

/** The Kafka message key of an event: `<accountId>:<entityId>`, so one entity's events stay ordered. */
export function messageKey(accountId: string, entityId: string): string {
  return `${accountId}:${entityId}`;
}

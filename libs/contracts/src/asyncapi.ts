import { eventDataExamples } from './examples';
import type { JsonSchema } from './json-schema';
import { cloudEvent } from './schemas/events/envelope';
import { type EventType, eventSchemas, type TopicName, topicCatalog } from './schemas/events/index';

const bindingVersion = '0.5.0';

const kafkaHeaders: JsonSchema = {
  type: 'object',
  properties: {
    'content-type': { type: 'string', const: 'application/cloudevents+json; charset=UTF-8' },
    traceparent: {
      type: 'string',
      pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
      description: 'W3C trace context of the causing request (also in the envelope).',
    },
  },
};

const messageKey: JsonSchema = {
  type: 'string',
  pattern: '^[^:]+:.+$',
  maxLength: 400,
  description:
    "`<accountId>:<entityId>` (= `accountid:subject`), so one entity's events stay on one partition, in order.",
};

const producerSource: Record<string, string> = {
  'provider-registry': '/cc/provider-registry',
  routing: '/cc/routing',
  analysis: '/cc/analysis',
  notifier: '/cc/notifier',
  gateway: '/cc/gateway',
};

function subjectOf(data: Record<string, unknown>): string {
  for (const key of ['interactionId', 'agentId', 'guid', 'provider']) {
    const value = data[key];
    if (typeof value === 'string') return value;
  }
  return 'acme';
}

/** An example envelope of an event type, built from its data example. */
export function exampleEvent(type: EventType): Record<string, unknown> {
  const topic = Object.entries(topicCatalog).find(([, t]) => (t.eventTypes as readonly string[]).includes(type));
  const data = eventDataExamples[type] as unknown as Record<string, unknown>;
  return {
    specversion: '1.0',
    id: '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
    source: producerSource[topic?.[1].producer ?? 'routing'] ?? '/cc/routing',
    type,
    time: (data.occurredAt as string | undefined) ?? '2024-05-01T08:00:00.000Z',
    subject: subjectOf(data),
    accountid: 'acme',
    datacontenttype: 'application/json',
    data,
  };
}

const messageId = (type: string): string => type;

function message(type: EventType): Record<string, unknown> {
  const data = eventSchemas[type];
  const example = exampleEvent(type);
  return {
    name: type,
    title: type,
    summary: data.description ?? `The ${type} event.`,
    contentType: 'application/cloudevents+json',
    headers: kafkaHeaders,
    payload: cloudEvent(type, data),
    correlationId: { description: 'The event id.', location: '$message.payload#/id' },
    bindings: { kafka: { key: messageKey, bindingVersion } },
    examples: [
      {
        name: 'example',
        headers: { 'content-type': 'application/cloudevents+json; charset=UTF-8' },
        payload: example,
      },
    ],
  };
}

const channelId = (topic: string): string => topic;

/** The headers the bus adds to a dead-lettered message (besides the original message's own headers). */
const deadLetterHeaders: JsonSchema = {
  type: 'object',
  required: [
    'x-dlq-error',
    'x-dlq-source-topic',
    'x-dlq-source-partition',
    'x-dlq-source-offset',
    'x-dlq-attempts',
    'x-dlq-group',
  ],
  properties: {
    'x-dlq-error': {
      type: 'string',
      maxLength: 2000,
      description: 'Why: the validation violations, or the last handler error.',
    },
    'x-dlq-source-topic': { type: 'string', description: 'The topic the message was consumed from.' },
    'x-dlq-source-partition': { type: 'string', pattern: '^[0-9]+$' },
    'x-dlq-source-offset': { type: 'string', pattern: '^[0-9]+$' },
    'x-dlq-attempts': {
      type: 'string',
      pattern: '^[0-9]+$',
      description: '0 for a message that was invalid (never handled), else the handler attempts made.',
    },
    'x-dlq-group': { type: 'string', description: 'The consumer group that gave up on it.' },
  },
};

/**
 * Every consumer group's dead-letter topic `<group>.dlq`: one kind of message, a consumed message the group could
 * not handle, kept byte for byte (key, value and headers) with the `x-dlq-*` headers added.
 */
function addDeadLetterChannel(
  channels: Record<string, unknown>,
  operations: Record<string, unknown>,
  messages: Record<string, unknown>,
): void {
  const groups = [...new Set(Object.values(topicCatalog).flatMap((t) => t.consumers as readonly string[]))].sort();
  messages['dead-letter'] = {
    name: 'dead-letter',
    title: 'Dead-lettered message',
    summary:
      'A message of a consumed topic that its consumer group could not handle: invalid (not JSON, envelope or data breaking its schema, a known type on a topic that does not carry it: at once) or failing its handler after the bounded retries. Unknown event types are not dead-lettered: consumers skip and count them (forward compatibility).',
    headers: deadLetterHeaders,
    payload: { description: 'The consumed message value, unchanged (it may be neither JSON nor a valid event).' },
    bindings: {
      kafka: { key: { type: 'string', description: 'The consumed message key, unchanged.' }, bindingVersion },
    },
  };
  channels['dead-letter'] = {
    address: '{group}.dlq',
    title: '<group>.dlq',
    description:
      "A consumer group's dead-letter topic. Replay by re-publishing a message's value to its `x-dlq-source-topic` once its cause is fixed.",
    parameters: { group: { description: 'The consumer group (its default name).', enum: groups } },
    messages: { 'dead-letter': { $ref: '#/components/messages/dead-letter' } },
  };
  for (const group of groups) {
    operations[`${group}.send.dead-letter`] = {
      action: 'send',
      channel: { $ref: '#/channels/dead-letter' },
      summary: `${group} dead-letters what it could not handle to \`${group}.dlq\`.`,
      messages: [{ $ref: '#/channels/dead-letter/messages/dead-letter' }],
    };
  }
}

function buildDocument(): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const [topic, info] of Object.entries(topicCatalog) as [TopicName, (typeof topicCatalog)[TopicName]][]) {
    const id = channelId(topic);
    const channelMessages: Record<string, unknown> = {};
    for (const type of info.eventTypes) {
      messages[messageId(type)] = message(type);
      channelMessages[messageId(type)] = { $ref: `#/components/messages/${messageId(type)}` };
    }
    channels[id] = {
      address: topic,
      title: topic,
      description: `${info.description} Producer: ${info.producer}. Key and subject: ${info.entity}.`,
      messages: channelMessages,
      bindings: {
        kafka: {
          topic,
          partitions: 12,
          replicas: 3,
          topicConfiguration: { 'cleanup.policy': ['delete'], 'retention.ms': 604800000 },
          bindingVersion,
        },
      },
    };
    const refs = info.eventTypes.map((type) => ({ $ref: `#/channels/${id}/messages/${messageId(type)}` }));
    operations[`${info.producer}.send.${topic}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${id}` },
      summary: `${info.producer} publishes ${topic} through its transactional outbox.`,
      messages: refs,
    };
    for (const consumer of info.consumers) {
      operations[`${consumer}.receive.${topic}`] = {
        action: 'receive',
        channel: { $ref: `#/channels/${id}` },
        summary: `${consumer} consumes ${topic} (consumer group \`${consumer}\`, dead letters on \`${consumer}.dlq\`).`,
        messages: refs,
        bindings: { kafka: { groupId: { type: 'string', enum: [consumer] }, bindingVersion } },
      };
    }
  }
  addDeadLetterChannel(channels, operations, messages);
  return {
    asyncapi: '3.0.0',
    id: 'urn:cc-suite:events',
    info: {
      title: 'Contact-center suite events',
      version: '1.0.0',
      description: `Every Kafka topic of the suite, its event types and their data schemas.

Decisions:
- **Envelope**: CloudEvents 1.0 in the Kafka protocol binding's **structured mode**: the message value is the JSON event \`{specversion, id, source, type, time, subject, accountid, datacontenttype, data}\` (plus optional \`traceparent\`), with header \`content-type: application/cloudevents+json; charset=UTF-8\`. Structured mode keeps the whole event in one JSON document, which the outbox stores and relays unchanged and the dead-letter topics keep intact.
- **Key**: \`<accountId>:<entityId>\` (= \`accountid:subject\`): all events of one interaction, agent or provider land on one partition, in order.
- **Types** are past tense, \`<entity>.<change>\`; \`time\` and every timestamp in data are UTC with milliseconds.
- **Versioning**: the topic name carries the version (\`.v1\`); additive changes (new optional fields, new event types) keep it, so data schemas allow unknown fields and consumers ignore them; a breaking change adds a \`.v2\` topic beside \`.v1\` until every consumer moved.
- **Delivery** is at least once: consumers dedupe on the event id, commit explicitly after handling, retry transient errors a bounded number of times and dead-letter to \`<group>.dlq\` (channel \`dead-letter\`: one kind of message, the consumed message unchanged with \`x-dlq-*\` headers); an invalid event is dead-lettered at once; a well-formed event of a type the consumer does not know is skipped and counted, not dead-lettered (forward compatibility). Producers and consumers validate with the payload schemas of this document.
- Secrets never travel in clear: provider header values and signing secrets are sealed (AES-256-GCM) for the notifier only.`,
    },
    defaultContentType: 'application/cloudevents+json',
    servers: {
      local: {
        host: 'localhost:9092',
        protocol: 'kafka',
        description: "The local stack's broker; production brokers come from configuration.",
      },
    },
    channels,
    operations,
    components: { messages },
  };
}

/** The AsyncAPI 3.0 document describing every topic, its events, keys, producer and consumers. */
export const asyncApiDocument: Record<string, unknown> = buildDocument();

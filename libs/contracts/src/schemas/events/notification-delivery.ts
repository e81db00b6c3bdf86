import { type JsonSchema, nullable, text } from '../../json-schema';
import { count, guid, millis, name, utcMillis } from '../common';

const delivery: Record<string, JsonSchema> = {
  deliveryId: { ...guid, description: 'Equals the notificationid and webhook-id.' },
  provider: name,
  interactionId: guid,
  notification: { type: 'string', enum: ['AssignToAgent', 'Release'] },
  attempt: { type: 'integer', minimum: 1 },
  occurredAt: utcMillis,
};
const required = ['deliveryId', 'provider', 'interactionId', 'notification', 'attempt', 'occurredAt'];

/** notification-delivery.delivered: the provider endpoint answered 2xx. */
export const deliveryDelivered: JsonSchema = {
  type: 'object',
  required: [...required, 'status', 'latencyMs'],
  properties: { ...delivery, status: { type: 'integer', minimum: 200, maximum: 299 }, latencyMs: millis },
};

/** notification-delivery.attempt-failed: one attempt failed; another follows at nextAttemptAt. */
export const deliveryAttemptFailed: JsonSchema = {
  type: 'object',
  required: [...required, 'status', 'error', 'nextAttemptAt'],
  properties: {
    ...delivery,
    status: { type: ['integer', 'null'], description: 'HTTP status, null when no response came.' },
    error: nullable(text(500)),
    nextAttemptAt: utcMillis,
  },
};

/** notification-delivery.dead-lettered: every attempt failed; the delivery is dead and can be replayed by API. */
export const deliveryDeadLettered: JsonSchema = {
  type: 'object',
  required: [...required, 'status', 'error'],
  properties: {
    ...delivery,
    status: { type: ['integer', 'null'] },
    error: nullable(text(500)),
  },
};

/** notification-delivery.endpoint-disabled: the endpoint answered 410 Gone; nothing more is sent to it. */
export const deliveryEndpointDisabled: JsonSchema = {
  type: 'object',
  required: ['provider', 'status', 'occurredAt', 'pending'],
  properties: {
    provider: name,
    status: { type: 'integer', const: 410 },
    pending: { ...count, description: 'Deliveries left undelivered.' },
    occurredAt: utcMillis,
  },
};

/** Data schema of each notification-delivery event type. */
export const notificationDeliveryEvents = {
  'notification-delivery.delivered': deliveryDelivered,
  'notification-delivery.attempt-failed': deliveryAttemptFailed,
  'notification-delivery.dead-lettered': deliveryDeadLettered,
  'notification-delivery.endpoint-disabled': deliveryEndpointDisabled,
} as const satisfies Record<string, JsonSchema>;

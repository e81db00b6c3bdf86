import type { JsonSchema } from '../json-schema';
import { nullable, text } from '../json-schema';
import { limits } from '../limits';
import { guid, name, utcMillis } from './common';
import { identifier, interactionType } from './interactions';

/** The parameters of a provider notification, named as existing providers parse them. */
export const notificationParams: JsonSchema = {
  type: 'object',
  required: ['AccountName', 'AccountId', 'Agent', 'AgentId', 'InteractionType', 'OccurredAt'],
  properties: {
    AccountName: text(200, { description: 'Display name of the account.' }),
    AccountId: text(100),
    Agent: { ...name, description: 'Username of the agent the interaction was assigned to.' },
    AgentId: text(100),
    Provider: name,
    Route: { ...nullable(name), description: 'Route the interaction was dispatched through.' },
    InteractionType: interactionType,
    RequestId: { ...nullable(identifier), description: 'requestId of the dispatching Interaction object.' },
    OccurredAt: { ...utcMillis, description: 'When the assignment or release happened.' },
    ReleasedBy: {
      type: 'string',
      enum: ['agent', 'api', 'system'],
      description: 'Release only: who released the interaction.',
    },
  },
};

/** One provider notification: AssignToAgent after an agent accepts the interaction, Release when it is released. */
export const providerNotification: JsonSchema = {
  type: 'object',
  required: ['notification', 'objectid', 'notificationid', 'params', 'externalId'],
  properties: {
    notification: { type: 'string', enum: ['AssignToAgent', 'Release'] },
    objectid: { ...guid, description: 'Id of the interaction (interactionId of the Invoke result).' },
    notificationid: {
      ...guid,
      description: 'Id of this notification; equals the `webhook-id` header and is the same on every retry.',
    },
    externalId: { ...nullable(identifier), description: 'externalId given at dispatch, or null.' },
    params: notificationParams,
  },
};

/** The body the notifier POSTs to a provider endpoint: a JSON array of notifications (one per POST in practice). */
export const providerNotificationBody: JsonSchema = {
  type: 'array',
  description:
    'A JSON array of notifications, in the shape existing providers parse. The notifier sends one notification per POST (an array of one), in order per interaction (a Release never precedes the AssignToAgent of the same interaction).',
  items: providerNotification,
  minItems: 1,
  maxItems: limits.maxRequestsPerInvoke,
};

/** Standard Webhooks headers sent with every notification, besides the provider's registered headers. */
export const webhookHeaders: JsonSchema = {
  type: 'object',
  description:
    "Standard Webhooks (https://www.standardwebhooks.com/) signature headers. The signed content is `<webhook-id>.<webhook-timestamp>.<body>`, HMAC-SHA256 with the provider's signing secret (base64 after `whsec_`); during the grace period of a secret rotation both signatures are sent, space-separated.",
  required: ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
  properties: {
    'webhook-id': {
      ...guid,
      description: 'Equals `notificationid`; identical on every retry, so receivers can dedupe.',
    },
    'webhook-timestamp': {
      type: 'string',
      pattern: '^[0-9]{1,12}$',
      description: 'Unix time in seconds of this attempt; receivers should reject values far from now.',
    },
    'webhook-signature': {
      type: 'string',
      pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$',
      maxLength: 1000,
      description: 'Space-separated `v1,<base64 HMAC-SHA256>` signatures.',
    },
  },
};

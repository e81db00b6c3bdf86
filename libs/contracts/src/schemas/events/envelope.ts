import type { JsonSchema } from '../../json-schema';
import { utcMillis } from '../common';

/** The CloudEvents attributes common to every event, without `type` and `data`. */
const attributes: Record<string, JsonSchema> = {
  specversion: { type: 'string', const: '1.0' },
  id: {
    type: 'string',
    minLength: 1,
    maxLength: 100,
    description: 'Unique per event (a UUID); consumers dedupe on it.',
  },
  source: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    pattern: '^/cc/[a-z0-9-]+$',
    description: 'The producing service as a URI reference, e.g. `/cc/routing`.',
  },
  time: { ...utcMillis, description: 'When the change happened, UTC with milliseconds.' },
  subject: { type: 'string', minLength: 1, maxLength: 200, description: 'Id of the entity the event is about.' },
  accountid: {
    type: 'string',
    minLength: 1,
    maxLength: 63,
    description: 'Extension attribute: the tenant; every consumer scopes by it.',
  },
  datacontenttype: { type: 'string', const: 'application/json' },
  dataschema: { type: 'string', maxLength: 500, description: 'Optional URI of the data schema.' },
  traceparent: {
    type: 'string',
    pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
    description: 'W3C trace context (CloudEvents distributed-tracing extension), also sent as a Kafka header.',
  },
};

const required = ['specversion', 'id', 'source', 'type', 'time', 'subject', 'accountid', 'datacontenttype', 'data'];

/** The CloudEvents 1.0 structured-mode envelope of one event type around its data schema. */
export function cloudEvent(type: string, data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required,
    properties: { ...attributes, type: { type: 'string', const: type }, data },
  };
}

/** Any event of the suite (type not yet known): validated first, then its data by type. */
export const anyCloudEvent: JsonSchema = {
  type: 'object',
  description:
    'CloudEvents 1.0, Kafka protocol binding in structured mode: the whole event is the JSON message value (content-type `application/cloudevents+json; charset=UTF-8` header). Message key `<accountId>:<entityId>`. Unknown attributes and unknown data fields are allowed, so additive changes keep the topic version.',
  required,
  properties: {
    ...attributes,
    type: { type: 'string', pattern: '^[a-z-]+\\.[a-z-]+$', maxLength: 100 },
    data: { type: 'object' },
  },
};

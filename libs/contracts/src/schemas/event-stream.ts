import type { JsonSchema } from '../json-schema';

/** Longest `Last-Event-ID` accepted (the gateway's cursors are far shorter). */
export const maxLastEventIdLength = 200;

/** Query of GET /events/stream. */
export const eventStreamQuery: JsonSchema = {
  type: 'object',
  properties: {
    lastEventId: {
      type: 'string',
      minLength: 1,
      maxLength: maxLastEventIdLength,
      description:
        'Resume after this event id, for clients that cannot set the `Last-Event-ID` header on their first connection (the header wins when both are given).',
    },
  },
  additionalProperties: false,
};

/** `data` of the `stream.reset` event: the requested position could not be resumed. */
export const streamReset: JsonSchema = {
  type: 'object',
  required: ['reason', 'lastEventId'],
  properties: {
    reason: {
      type: 'string',
      enum: ['unknown-cursor', 'outside-window'],
      description:
        '`outside-window`: events after it were already evicted from the resume window; `unknown-cursor`: the id is from another gateway instance, from before a restart, or malformed.',
    },
    lastEventId: {
      type: 'string',
      maxLength: maxLastEventIdLength,
      description: 'The id the client asked to resume after.',
    },
  },
  additionalProperties: false,
};

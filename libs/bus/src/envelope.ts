import { randomUUID } from 'node:crypto';

/** A CloudEvents 1.0 event in structured JSON mode (the whole envelope is the Kafka message value). */
export interface CloudEvent<T = unknown> {
  specversion: '1.0';
  id: string;
  /** URI-reference of the producing service, e.g. `/cc/routing`. */
  source: string;
  /** Past-tense event type, e.g. `interaction.assigned`. */
  type: string;
  time: string;
  /** The aggregate's id (interaction, provider, agent). */
  subject: string;
  /** Tenancy: the account the aggregate belongs to. */
  accountid: string;
  datacontenttype: 'application/json';
  /** W3C trace context of the request that caused the event (CloudEvents distributed-tracing extension). */
  traceparent?: string;
  data: T;
}

/** Builds an event with a fresh id and the current time. */
export function newEvent<T>(p: {
  source: string;
  type: string;
  subject: string;
  accountId: string;
  data: T;
  traceparent?: string;
  id?: string;
  time?: Date;
}): CloudEvent<T> {
  return {
    specversion: '1.0',
    id: p.id ?? randomUUID(),
    source: p.source,
    type: p.type,
    time: (p.time ?? new Date()).toISOString(),
    subject: p.subject,
    accountid: p.accountId,
    datacontenttype: 'application/json',
    ...(p.traceparent ? { traceparent: p.traceparent } : {}),
    data: p.data,
  };
}

/** The Kafka key of an event: account id + aggregate id, so one aggregate's events stay on one partition in order. */
export function eventKey(event: Pick<CloudEvent, 'accountid' | 'subject'>): string {
  return `${event.accountid}:${event.subject}`;
}

/** JSON Schema of the envelope (the `data` member is checked separately against the event type's schema). */
export const envelopeSchema = {
  type: 'object',
  required: ['specversion', 'id', 'source', 'type', 'time', 'subject', 'accountid', 'data'],
  properties: {
    specversion: { const: '1.0' },
    id: { type: 'string', minLength: 1, maxLength: 200 },
    source: { type: 'string', minLength: 1, maxLength: 200 },
    type: { type: 'string', minLength: 1, maxLength: 200 },
    time: { type: 'string', format: 'date-time' },
    subject: { type: 'string', minLength: 1, maxLength: 300 },
    accountid: { type: 'string', minLength: 1, maxLength: 100 },
    datacontenttype: { const: 'application/json' },
    traceparent: { type: 'string', maxLength: 100 },
    data: {},
  },
} as const;

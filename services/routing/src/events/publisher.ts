import { type CloudEvent, newEvent } from '@cc/bus';
import type { DomainEvent } from '../domain/types';

/** The CloudEvents `source` of every routing event. */
export const eventSource = '/cc/routing';

/** Wraps domain events of one aggregate into CloudEvents (time = the event's exact instant). */
export function toCloudEvents(
  accountId: string,
  subject: string,
  events: DomainEvent[],
  traceparent?: string,
): CloudEvent[] {
  return events.map((e) =>
    newEvent({
      source: eventSource,
      type: e.type,
      subject,
      accountId,
      data: e.data,
      time: new Date(e.at),
      ...(traceparent ? { traceparent } : {}),
    }),
  );
}

/** What a write left pending in a document's outbox (the bus's type; the eager publisher is the bus's too). */
export type { Staged } from '@cc/bus';

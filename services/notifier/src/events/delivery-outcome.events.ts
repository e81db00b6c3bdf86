import { type CloudEvent, newEvent } from '@cc/bus';
import type { DeliveryDoc } from '../store/notifier.models';

/** The topic delivery outcomes are published on (via the deliveries' outbox). */
export const deliveryTopic = 'cc.notification-delivery.v1';

const source = '/cc/notifier';

type Base = Pick<DeliveryDoc, '_id' | 'accountId' | 'provider' | 'interactionId' | 'notification' | 'traceparent'>;

function data(d: Base, attempt: number, at: Date) {
  return {
    deliveryId: d._id,
    provider: d.provider,
    interactionId: d.interactionId,
    notification: d.notification,
    attempt,
    occurredAt: at.toISOString(),
  };
}

function event<T>(d: Base, type: string, payload: T, at: Date): CloudEvent<T> {
  return newEvent({
    source,
    type,
    subject: d.interactionId,
    accountId: d.accountId,
    data: payload,
    time: at,
    ...(d.traceparent ? { traceparent: d.traceparent } : {}),
  });
}

/** notification-delivery.delivered: the endpoint answered 2xx. */
export function deliveredEvent(d: Base, attempt: number, status: number, latencyMs: number, at: Date): CloudEvent {
  return event(d, 'notification-delivery.delivered', { ...data(d, attempt, at), status, latencyMs }, at);
}

/** notification-delivery.attempt-failed: one attempt failed; another follows at `next`. */
export function attemptFailedEvent(
  d: Base,
  attempt: number,
  status: number | null,
  error: string | null,
  next: Date,
  at: Date,
): CloudEvent {
  return event(
    d,
    'notification-delivery.attempt-failed',
    { ...data(d, attempt, at), status, error: error?.slice(0, 500) ?? null, nextAttemptAt: next.toISOString() },
    at,
  );
}

/** notification-delivery.dead-lettered: no attempt is left (or the endpoint is disabled); replayable by API. */
export function deadLetteredEvent(
  d: Base,
  attempt: number,
  status: number | null,
  error: string | null,
  at: Date,
): CloudEvent {
  return event(
    d,
    'notification-delivery.dead-lettered',
    { ...data(d, Math.max(1, attempt), at), status, error: error?.slice(0, 500) ?? null },
    at,
  );
}

/** notification-delivery.endpoint-disabled: the endpoint answered 410; `pending` deliveries stay undelivered. */
export function endpointDisabledEvent(accountId: string, provider: string, pending: number, at: Date): CloudEvent {
  return newEvent({
    source,
    type: 'notification-delivery.endpoint-disabled',
    subject: provider,
    accountId,
    data: { provider, status: 410, pending, occurredAt: at.toISOString() },
    time: at,
  });
}

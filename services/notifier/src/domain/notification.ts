import { createHash } from 'node:crypto';
import type { InteractionType, ProviderNotification } from '@cc/contracts';

/** The two notification kinds providers receive. */
export type NotificationKind = 'AssignToAgent' | 'Release';

/** Fixed namespace of this suite's delivery ids (a random UUID chosen once). */
const deliveryNamespace = Buffer.from('6c0b8f1e4d2a4e9b9a3f5c7d1e2b4a60', 'hex');

/**
 * The delivery id (= `notificationid` = `webhook-id`) of the notification an event causes: a
 * name-based UUID (version 5) of the event id and the kind, so a redelivered event maps to the same
 * delivery and a retried or replayed POST carries the same id.
 */
export function deliveryIdFor(eventId: string, kind: NotificationKind): string {
  const hash = createHash('sha1').update(deliveryNamespace).update(`${eventId}:${kind}`).digest();
  const bytes = Buffer.from(hash.subarray(0, 16));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** What the notifier knows of an interaction when it builds a notification. */
export interface NotificationFacts {
  kind: NotificationKind;
  deliveryId: string;
  accountId: string;
  /** Display name of the account; the account id when the notifier knows no name. */
  accountName: string;
  interactionId: string;
  externalId: string | null;
  provider: string;
  interactionType: InteractionType;
  agentId: string;
  agentUsername: string;
  route: string | null;
  requestId: string | null;
  occurredAt: string;
  releasedBy?: 'agent' | 'api' | 'system';
}

/** The notification object providers parse (ARCHITECTURE §5, `providerNotification` in the contracts). */
export function buildNotification(f: NotificationFacts): ProviderNotification {
  return {
    notification: f.kind,
    objectid: f.interactionId,
    notificationid: f.deliveryId,
    externalId: f.externalId,
    params: {
      AccountName: f.accountName,
      AccountId: f.accountId,
      Agent: f.agentUsername,
      AgentId: f.agentId,
      Provider: f.provider,
      Route: f.route,
      InteractionType: f.interactionType,
      RequestId: f.requestId,
      OccurredAt: f.occurredAt,
      ...(f.kind === 'Release' && f.releasedBy ? { ReleasedBy: f.releasedBy } : {}),
    },
  };
}

/** The POST body: a JSON array of one notification, serialised once so every attempt sends the same bytes. */
export function notificationBody(notification: ProviderNotification): string {
  return JSON.stringify([notification]);
}

import { createHmac, timingSafeEqual } from 'node:crypto';

/** One notification item as the provider receives it (libs/contracts `providerNotification`). */
export interface NotificationItem {
  notification: 'AssignToAgent' | 'Release';
  objectid: string;
  notificationid: string;
  externalId: string | null;
  params: { Agent?: string; AgentId?: string } & Record<string, unknown>;
}

/** The signature headers of a POST. */
export interface SignedPost {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  raw: string;
}

/**
 * Verifies a Standard Webhooks signature: HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed by the
 * base64 after `whsec_`, against every space-separated `v1,<base64>` (two during a secret rotation); the
 * timestamp within 5 minutes of `nowMs`. Returns null when valid, else why not.
 */
export function verifySignature(secrets: string[], post: SignedPost, nowMs: number): string | null {
  const { id, timestamp, signature } = post;
  if (!id || !timestamp || !signature) return 'webhook-id, webhook-timestamp or webhook-signature missing';
  if (!/^\d+$/.test(timestamp) || Math.abs(nowMs / 1000 - Number(timestamp)) > 300) {
    return `webhook-timestamp ${timestamp} is not within 5 minutes`;
  }
  for (const secret of secrets) {
    if (!secret.startsWith('whsec_')) continue;
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${post.raw}`).digest();
    const ok = signature.split(' ').some((part) => {
      const [version, value] = part.split(',');
      if (version !== 'v1' || !value) return false;
      const given = Buffer.from(value, 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (ok) return null;
  }
  return 'no v1 signature matches';
}

/** Counts of what the receiver saw for a set of expected notifications. */
export interface NotificationCheck {
  expected: number;
  /** Expected and received at least once. */
  received: number;
  missing: string[];
  /** Extra arrivals of an already received webhook-id (at-least-once redelivery). */
  duplicates: number;
  /** The same notification under two different webhook-ids (a real duplicate, not a redelivery). */
  doubled: string[];
  /** Received for an interaction of this run but not expected (e.g. a second Release). */
  unexpected: string[];
}

/**
 * Compares expected notifications (`<kind> <interactionId>` with how many times each is expected) with
 * the arrivals (one per POST: key and webhook-id).
 */
export function checkNotifications(
  expected: Map<string, number>,
  arrivals: { key: string; webhookId: string }[],
): NotificationCheck {
  const idsByKey = new Map<string, Set<string>>();
  let duplicates = 0;
  const seenIds = new Set<string>();
  for (const a of arrivals) {
    if (seenIds.has(`${a.webhookId}\n${a.key}`)) duplicates++;
    seenIds.add(`${a.webhookId}\n${a.key}`);
    const set = idsByKey.get(a.key) ?? new Set<string>();
    set.add(a.webhookId);
    idsByKey.set(a.key, set);
  }
  const out: NotificationCheck = { expected: 0, received: 0, missing: [], duplicates, doubled: [], unexpected: [] };
  for (const [key, want] of expected) {
    out.expected += want;
    const got = idsByKey.get(key)?.size ?? 0;
    out.received += Math.min(got, want);
    if (got < want) out.missing.push(want > 1 ? `${key} (${got} of ${want})` : key);
    if (got > want) out.doubled.push(`${key} (${got} webhook-ids, want ${want})`);
  }
  for (const key of idsByKey.keys()) if (!expected.has(key)) out.unexpected.push(key);
  return out;
}

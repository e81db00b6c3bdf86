import { createHmac } from 'node:crypto';

/** A Standard Webhooks signing secret and, for a rotated-out one, until when it still signs. */
export interface SigningSecret {
  /** `whsec_<base64 key>`. */
  secret: string;
  /** ISO time after which this secret no longer signs; null for the current secret. */
  validUntil: string | null;
}

/** The Standard Webhooks headers of one attempt. */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The secrets that sign at `now`: the current one and any rotated-out one still in its grace period. */
export function activeSecrets(secrets: readonly SigningSecret[], now: number): SigningSecret[] {
  return secrets.filter((s) => s.validUntil === null || Date.parse(s.validUntil) > now);
}

/** The raw HMAC key of a `whsec_` secret (the base64 part after the prefix). */
export function secretKey(secret: string): Buffer {
  const b64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  return Buffer.from(b64, 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "${id}.${timestamp}.${body}">` for one secret. */
export function signatureFor(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * Signs one attempt per Standard Webhooks: every active secret contributes a `v1,` signature
 * (space-separated), so receivers verify with either secret during a rotation's grace period.
 */
export function signWebhook(
  id: string,
  body: string,
  secrets: readonly SigningSecret[],
  now: number,
): WebhookHeaders | undefined {
  const signing = activeSecrets(secrets, now);
  if (signing.length === 0) return undefined;
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signing.map((s) => signatureFor(s.secret, id, timestamp, body)).join(' '),
  };
}

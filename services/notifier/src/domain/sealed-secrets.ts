import type { SealedSecrets } from '@cc/contracts';
import type { SecretBox } from '@cc/kit/crypto';
import { notifierError } from './errors';
import type { SigningSecret } from './signature';

/** A provider's delivery secrets once opened: the registered headers and the signing secrets. */
export interface DeliverySecrets {
  headers: { key: string; value: string }[];
  signingSecrets: SigningSecret[];
}

/**
 * The additional authenticated data that binds a sealed value to its event, so a ciphertext copied
 * onto another account's, provider's or version's event does not open: the JSON array
 * `["cc.provider.v1", accountId, provider, version]`, as the provider registry seals it.
 */
export function sealedAad(accountId: string, provider: string, version: number): string {
  return JSON.stringify(['cc.provider.v1', accountId, provider, version]);
}

/**
 * Opens the `sealed` member of a provider event (`{kid, alg, iv, ciphertext, tag}`: the parts of a
 * {@link SecretBox} value) and checks the plaintext's shape. Throws `NOTIFIER.SEALED_SECRETS` without
 * any secret material in the message.
 */
export function openDeliverySecrets(box: SecretBox, sealed: SealedSecrets, aad: string): DeliverySecrets {
  let plain: unknown;
  try {
    plain = JSON.parse(box.open(['v1', sealed.kid, sealed.iv, sealed.tag, sealed.ciphertext].join('.'), aad));
  } catch {
    throw notifierError(
      'NOTIFIER.SEALED_SECRETS',
      `the sealed delivery secrets do not open (key '${sealed.kid}' unknown, wrong binding or tampered)`,
    );
  }
  const p = plain as { headers?: unknown; signingSecrets?: unknown };
  const headers = Array.isArray(p.headers) ? p.headers : [];
  const secrets = Array.isArray(p.signingSecrets) ? p.signingSecrets : [];
  const okHeader = (h: unknown): h is { key: string; value: string } =>
    typeof (h as { key?: unknown })?.key === 'string' && typeof (h as { value?: unknown })?.value === 'string';
  const okSecret = (s: unknown): s is SigningSecret =>
    typeof (s as { secret?: unknown })?.secret === 'string' &&
    ((s as { validUntil?: unknown }).validUntil === null ||
      (s as { validUntil?: unknown }).validUntil === undefined ||
      typeof (s as { validUntil?: unknown }).validUntil === 'string');
  if (!headers.every(okHeader) || !secrets.every(okSecret)) {
    throw notifierError('NOTIFIER.SEALED_SECRETS', 'the sealed delivery secrets have an unexpected shape');
  }
  return {
    headers: headers.map((h) => ({ key: h.key, value: h.value })),
    signingSecrets: secrets.map((s) => ({ secret: s.secret, validUntil: s.validUntil ?? null })),
  };
}

/** Header names the notifier sets itself; a registered header of the same name is not sent. */
export const reservedHeaders = new Set([
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'x-request-id',
  'traceparent',
]);

/** The registered headers that go with every POST, minus those the notifier owns. */
export function providerHeaders(secrets: DeliverySecrets): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of secrets.headers) if (!reservedHeaders.has(h.key.toLowerCase())) out[h.key] = h.value;
  return out;
}

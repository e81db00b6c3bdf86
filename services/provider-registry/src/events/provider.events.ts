import { type CloudEvent, newEvent } from '@cc/bus';
import type { ProviderDeletedData, ProviderStateData, SealedSecrets } from '@cc/contracts';
import type { SecretBox } from '@cc/kit';
import type { ProviderHeader } from '../domain/provider-settings';
import type { SigningSecret } from '../domain/signing-secret';
import { providerTopic } from './topics';

const source = '/cc/provider-registry';

/**
 * AAD of the sealed secrets in a provider event: `["cc.provider.v1", accountid, provider, version]` as JSON.
 * The notifier opens `sealed` with the same `CC_ENCRYPTION_KEYS` and this AAD built from the event itself, so a
 * sealed value cannot be moved to another account, provider or version.
 */
export const sealedEventAad = (accountId: string, provider: string, version: number): string =>
  JSON.stringify([providerTopic, accountId, provider, version]);

/** The plaintext inside `sealed` (the contract's description): header values and the signing secrets. */
export interface SealedPayload {
  headers: { key: string; value: string }[];
  signingSecrets: { secret: string; validUntil: string | null }[];
}

/**
 * Seals header values and signing secrets for the notifier as the contract's `{kid, alg, iv, ciphertext, tag}`
 * (AES-256-GCM; the parts of the kit secret box's `v1.<kid>.<iv>.<tag>.<ciphertext>`).
 */
export function sealForNotifier(box: SecretBox, aad: string, payload: SealedPayload): SealedSecrets {
  const [, kid, iv, tag, ciphertext] = box.seal(JSON.stringify(payload), aad).split('.');
  return { kid: kid as string, alg: 'A256GCM', iv: iv as string, tag: tag as string, ciphertext: ciphertext as string };
}

/** Opens what {@link sealForNotifier} sealed (the notifier's side; also used by tests). */
export function openSealed(box: SecretBox, aad: string, sealed: SealedSecrets): SealedPayload {
  return JSON.parse(
    box.open(['v1', sealed.kid, sealed.iv, sealed.tag, sealed.ciphertext].join('.'), aad),
  ) as SealedPayload;
}

/** The full provider state an event carries (routing reads the permissions, the notifier the rest). */
export interface ProviderEventState {
  accountId: string;
  name: string;
  endpoint: string | null;
  headers: ProviderHeader[];
  agentactionspermitted: ProviderStateData['agentactionspermitted'];
  permissions: ProviderStateData['permissions'];
  signingSecrets: SigningSecret[];
  version: number;
}

/** provider.registered or provider.updated with the full state; secrets only sealed. */
export function providerStateEvent(
  box: SecretBox,
  type: 'provider.registered' | 'provider.updated',
  state: ProviderEventState,
  at: Date,
  opts: { reason?: 're-registered' | 'signing-secret-rotated'; traceparent?: string } = {},
): CloudEvent<ProviderStateData> {
  const sealed = sealForNotifier(box, sealedEventAad(state.accountId, state.name, state.version), {
    headers: state.headers.map((h) => ({ key: h.name, value: h.value })),
    signingSecrets: state.signingSecrets.map((s) => ({
      secret: s.secret,
      validUntil: s.validUntil?.toISOString() ?? null,
    })),
  });
  return newEvent<ProviderStateData>({
    source,
    type,
    subject: state.name,
    accountId: state.accountId,
    time: at,
    ...(opts.traceparent ? { traceparent: opts.traceparent } : {}),
    data: {
      provider: state.name,
      endpoint: state.endpoint,
      headerNames: state.headers.map((h) => h.name),
      agentactionspermitted: state.agentactionspermitted,
      permissions: state.permissions,
      sealed,
      version: state.version,
      occurredAt: at.toISOString(),
      ...(type === 'provider.updated' && opts.reason ? { reason: opts.reason } : {}),
    },
  });
}

/** provider.deleted: routing refuses the name from now on, the notifier forgets the endpoint. */
export function providerDeletedEvent(
  accountId: string,
  name: string,
  version: number,
  at: Date,
  traceparent?: string,
): CloudEvent<ProviderDeletedData> {
  return newEvent<ProviderDeletedData>({
    source,
    type: 'provider.deleted',
    subject: name,
    accountId,
    time: at,
    ...(traceparent ? { traceparent } : {}),
    data: { provider: name, version, occurredAt: at.toISOString() },
  });
}

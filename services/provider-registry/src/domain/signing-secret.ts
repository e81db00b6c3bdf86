/** A Standard Webhooks signing secret of a provider; `validUntil` null while it is the current one. */
export interface SigningSecret {
  secret: string;
  createdAt: Date;
  validUntil: Date | null;
}

/** Standard Webhooks secrets are `whsec_` + base64 of 24 to 64 random bytes; this suite uses 32. */
export const signingSecretBytes = 32;

/** Formats random bytes as a Standard Webhooks signing secret (`whsec_<base64>`). */
export function formatSigningSecret(bytes: Uint8Array): string {
  if (bytes.length < 24 || bytes.length > 64) throw new Error('a signing secret needs 24 to 64 random bytes');
  return `whsec_${Buffer.from(bytes).toString('base64')}`;
}

/** The secrets that still sign at `now`: the current one and previous ones inside their grace period. */
export function liveSecrets(secrets: readonly SigningSecret[], now: Date): SigningSecret[] {
  return secrets.filter((s) => s.validUntil === null || s.validUntil.getTime() > now.getTime());
}

/**
 * Rotation: the new secret becomes current; the previous current one keeps signing for `graceSeconds`
 * (Standard Webhooks lets the notifier send both signatures meanwhile); expired ones are dropped.
 * Returns the new list (current first) and when the previous secret stops signing.
 */
export function rotateSecrets(
  secrets: readonly SigningSecret[],
  fresh: string,
  now: Date,
  graceSeconds: number,
): { secrets: SigningSecret[]; previousValidUntil: Date } {
  const previousValidUntil = new Date(now.getTime() + graceSeconds * 1000);
  const kept = liveSecrets(secrets, now).map((s) =>
    s.validUntil === null || s.validUntil.getTime() > previousValidUntil.getTime()
      ? { ...s, validUntil: previousValidUntil }
      : s,
  );
  return { secrets: [{ secret: fresh, createdAt: now, validUntil: null }, ...kept], previousValidUntil };
}

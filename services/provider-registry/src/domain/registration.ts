import { liveSecrets, type SigningSecret } from './signing-secret';

/** What the store holds about a provider name before a registration (possibly a deletion tombstone). */
export interface ExistingProvider {
  version: number;
  deleted: boolean;
  createdAt: Date;
  signingSecrets: SigningSecret[];
}

/** The outcome of a registration: created (201, new secret shown once) or replaced (200). */
export interface RegistrationPlan {
  created: boolean;
  version: number;
  createdAt: Date;
  signingSecrets: SigningSecret[];
  /** The secret to show in the response: only when the provider is created. */
  newSecret?: string;
}

/**
 * Decides what a registration does: a new name (or one deleted before) is created with a fresh signing secret;
 * an existing one is replaced and keeps its secrets. Versions only grow, across deletions too, so consumers
 * that keep the highest version never resurrect a deleted provider.
 */
export function planRegistration(
  existing: ExistingProvider | null,
  now: Date,
  freshSecret: () => string,
): RegistrationPlan {
  const version = (existing?.version ?? 0) + 1;
  if (!existing || existing.deleted) {
    const secret = freshSecret();
    return {
      created: true,
      version,
      createdAt: now,
      signingSecrets: [{ secret, createdAt: now, validUntil: null }],
      newSecret: secret,
    };
  }
  return {
    created: false,
    version,
    createdAt: existing.createdAt,
    signingSecrets: liveSecrets(existing.signingSecrets, now),
  };
}

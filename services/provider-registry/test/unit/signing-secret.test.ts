import { planRegistration } from '../../src/domain/registration';
import { formatSigningSecret, liveSecrets, rotateSecrets } from '../../src/domain/signing-secret';

const at = (iso: string) => new Date(iso);

describe('signing secrets', () => {
  it('are whsec_ + base64 of 24 to 64 random bytes (Standard Webhooks)', () => {
    const secret = formatSigningSecret(new Uint8Array(32).fill(7));
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32,128}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(() => formatSigningSecret(new Uint8Array(16))).toThrow();
  });

  it('rotation keeps the previous secret for the grace period and drops expired ones', () => {
    const now = at('2024-05-01T08:00:00.000Z');
    const current = { secret: 'whsec_old', createdAt: at('2024-04-01T00:00:00.000Z'), validUntil: null };
    const expired = {
      secret: 'whsec_older',
      createdAt: at('2024-03-01T00:00:00.000Z'),
      validUntil: at('2024-04-02T00:00:00.000Z'),
    };
    const { secrets, previousValidUntil } = rotateSecrets([current, expired], 'whsec_new', now, 86400);
    expect(previousValidUntil).toEqual(at('2024-05-02T08:00:00.000Z'));
    expect(secrets).toEqual([
      { secret: 'whsec_new', createdAt: now, validUntil: null },
      { ...current, validUntil: previousValidUntil },
    ]);
    // Within the grace period both sign; after it only the new one.
    expect(liveSecrets(secrets, at('2024-05-02T07:59:59.999Z')).map((s) => s.secret)).toEqual([
      'whsec_new',
      'whsec_old',
    ]);
    expect(liveSecrets(secrets, at('2024-05-02T08:00:00.000Z')).map((s) => s.secret)).toEqual(['whsec_new']);
  });

  it('a second rotation inside the grace period shortens no earlier deadline', () => {
    const t0 = at('2024-05-01T08:00:00.000Z');
    const first = rotateSecrets([{ secret: 'a', createdAt: t0, validUntil: null }], 'b', t0, 100);
    const second = rotateSecrets(first.secrets, 'c', new Date(t0.getTime() + 10_000), 100);
    expect(second.secrets.map((s) => [s.secret, s.validUntil?.toISOString() ?? null])).toEqual([
      ['c', null],
      ['b', '2024-05-01T08:01:50.000Z'],
      ['a', '2024-05-01T08:01:40.000Z'],
    ]);
  });
});

describe('planRegistration', () => {
  const now = at('2024-05-01T08:00:00.000Z');
  const fresh = () => 'whsec_fresh';

  it('creates a new name with version 1 and a fresh secret shown once', () => {
    expect(planRegistration(null, now, fresh)).toEqual({
      created: true,
      version: 1,
      createdAt: now,
      signingSecrets: [{ secret: 'whsec_fresh', createdAt: now, validUntil: null }],
      newSecret: 'whsec_fresh',
    });
  });

  it('replaces an existing provider keeping its secrets and creation time', () => {
    const createdAt = at('2024-04-01T00:00:00.000Z');
    const secrets = [{ secret: 'whsec_kept', createdAt, validUntil: null }];
    const plan = planRegistration({ version: 4, deleted: false, createdAt, signingSecrets: secrets }, now, fresh);
    expect(plan).toEqual({ created: false, version: 5, createdAt, signingSecrets: secrets });
  });

  it('creates a deleted name anew with a version above the tombstone', () => {
    const plan = planRegistration({ version: 7, deleted: true, createdAt: now, signingSecrets: [] }, now, fresh);
    expect(plan.created).toBe(true);
    expect(plan.version).toBe(8);
    expect(plan.newSecret).toBe('whsec_fresh');
  });
});

import { createHmac, randomBytes } from 'node:crypto';
import { activeSecrets, signatureFor, signWebhook } from '../../src/domain/signature';

/** An independent Standard Webhooks verifier, as a receiving provider would write it. */
function verify(secret: string, headers: Record<string, string>, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
    .digest('base64');
  return (headers['webhook-signature'] ?? '').split(' ').some((sig) => sig === `v1,${expected}`);
}

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

describe('Standard Webhooks signatures', () => {
  it("signs id, timestamp and body with the secret's base64 key", () => {
    const secret = newSecret();
    const body = '[{"notification":"AssignToAgent"}]';
    const now = Date.parse('2024-05-01T08:00:00.500Z');
    const h = signWebhook('c3d4e5f6-a7b8-4c9d-8e0f-2a3b4c5d6e7f', body, [{ secret, validUntil: null }], now);
    expect(h?.['webhook-id']).toBe('c3d4e5f6-a7b8-4c9d-8e0f-2a3b4c5d6e7f');
    expect(h?.['webhook-timestamp']).toBe(String(Math.floor(now / 1000)));
    expect(h?.['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(verify(secret, h as unknown as Record<string, string>, body)).toBe(true);
    expect(verify(secret, h as unknown as Record<string, string>, `${body} `)).toBe(false);
    expect(verify(newSecret(), h as unknown as Record<string, string>, body)).toBe(false);
  });

  it('matches the Standard Webhooks reference vector', () => {
    // From the Standard Webhooks specification's test suite.
    const sig = signatureFor(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it("signs with both secrets during a rotation's grace period, then only the new one", () => {
    const current = newSecret();
    const previous = newSecret();
    const now = Date.parse('2024-05-01T08:00:00Z');
    const secrets = [
      { secret: current, validUntil: null },
      { secret: previous, validUntil: '2024-05-02T08:00:00.000Z' },
    ];
    const during = signWebhook('id-1', 'x', secrets, now) as unknown as Record<string, string>;
    expect(during['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verify(current, during, 'x')).toBe(true);
    expect(verify(previous, during, 'x')).toBe(true);
    const after = Date.parse('2024-05-03T08:00:00Z');
    expect(activeSecrets(secrets, after)).toHaveLength(1);
    const later = signWebhook('id-1', 'x', secrets, after) as unknown as Record<string, string>;
    expect(verify(previous, later, 'x')).toBe(false);
    expect(verify(current, later, 'x')).toBe(true);
  });
});

import { burnVerification, generateSecret, hashSecret, verifySecret } from '../../src/domain/secret-hash';

describe('secret hashing', () => {
  it('hashes with scrypt and a per-secret salt, and verifies only the right secret', async () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [h1, h2] = await Promise.all([hashSecret(secret), hashSecret(secret)]);
    expect(h1).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(h1).not.toBe(h2);
    expect(h1).not.toContain(secret);
    expect(await verifySecret(secret, h1)).toBe(true);
    expect(await verifySecret(secret, h2)).toBe(true);
    expect(await verifySecret(`${secret}x`, h1)).toBe(false);
  });

  it('treats malformed hashes as a mismatch', async () => {
    for (const bad of [
      '',
      'plain',
      'scrypt$1$8$1$c2FsdA$aGFzaA',
      'bcrypt$x$y$z$a$b',
      'scrypt$32768$8$1$c2FsdA$short',
    ]) {
      expect(await verifySecret('s', bad)).toBe(false);
    }
    expect(await burnVerification('anything')).toBe(false);
  });
});

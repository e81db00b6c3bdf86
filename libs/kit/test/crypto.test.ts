import { randomBytes } from 'node:crypto';
import { createSecretBox } from '../src/crypto';

const k = () => randomBytes(32).toString('base64');

describe('createSecretBox', () => {
  it('round-trips, never contains the plaintext, and differs each time', () => {
    const box = createSecretBox(`k1:${k()}`);
    const a = box.seal('Basic dXNlcjpwYXNz', 'acc1/provider');
    expect(a).not.toContain('dXNlcjpwYXNz');
    expect(a).not.toBe(box.seal('Basic dXNlcjpwYXNz', 'acc1/provider'));
    expect(box.open(a, 'acc1/provider')).toBe('Basic dXNlcjpwYXNz');
  });

  it('refuses a value bound to another owner or tampered with', () => {
    const box = createSecretBox(`k1:${k()}`);
    const a = box.seal('secret', 'acc1');
    expect(() => box.open(a, 'acc2')).toThrow();
    const parts = a.split('.');
    parts[4] = Buffer.from('other').toString('base64url');
    expect(() => box.open(parts.join('.'), 'acc1')).toThrow();
  });

  it('rotates: new values use the first key, old ones still open', () => {
    const old = `old:${k()}`;
    const sealedOld = createSecretBox(old).seal('x');
    const rotated = createSecretBox(`new:${k()},${old}`);
    expect(rotated.open(sealedOld)).toBe('x');
    expect(rotated.keyIdOf(rotated.seal('y'))).toBe('new');
  });

  it('rejects malformed key specs', () => {
    expect(() => createSecretBox('')).toThrow();
    expect(() => createSecretBox('k1:short')).toThrow(/32 bytes/);
  });
});

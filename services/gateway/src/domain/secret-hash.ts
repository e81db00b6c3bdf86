import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

// scrypt cost: N=2^15 with r=8 takes ~50-100 ms and 32 MiB per hash: slow for guessing, fine for a token request.
const params = { N: 32768, r: 8, p: 1 } as const;
const keyLength = 32;

function derive(secret: string, salt: Buffer, p: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...p, maxmem: 128 * p.N * p.r * 2 };
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** A fresh random secret (client secret, v0 API token): 256 bits, base64url. */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Hashes a secret with scrypt and a per-secret random salt: `scrypt$N$r$p$<salt>$<hash>`. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Compares a secret with a stored hash in constant time; false for any malformed hash. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const N = Number(n);
  if (!Number.isInteger(N) || N < 2 || N > 1_048_576 || expected.length !== keyLength) return false;
  const actual = await derive(secret, Buffer.from(salt, 'base64url'), { N, r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}

let dummy: Promise<string> | undefined;

/** Spends the time of one verification when the client is unknown, so timing does not reveal which ids exist. */
export async function burnVerification(secret: string): Promise<false> {
  dummy ??= hashSecret(generateSecret());
  await verifySecret(secret, await dummy);
  return false;
}

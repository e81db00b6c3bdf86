import { createTokenVerifier, type Principal } from '@cc/kit';
import type { KeyRing } from './key-ring';

/** Verified tokens are remembered this long (or until they expire, if sooner), so a busy client costs one check. */
const cacheMs = 30_000;
const cacheMax = 10_000;

/** Wraps a verifier with a small cache of successful verifications (a token string cannot change once signed). */
export function cachedVerifier(verify: (token: string) => Promise<Principal>): (token: string) => Promise<Principal> {
  const cache = new Map<string, { principal: Principal; until: number }>();
  return async (token) => {
    const now = Date.now();
    const hit = cache.get(token);
    if (hit && hit.until > now) return hit.principal;
    if (hit) cache.delete(token);
    const principal = await verify(token);
    const exp = expiryOf(token);
    if (cache.size >= cacheMax) cache.clear();
    cache.set(token, { principal, until: Math.min(now + cacheMs, exp ?? now) });
    return principal;
  };
}

function expiryOf(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: number;
    };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Verifies bearer tokens: against the key ring's published keys, or an external issuer's JWKS URL. */
export function gatewayVerifier(opts: {
  issuer: string;
  audience: string;
  accountClaim: string;
  /** External OIDC issuer's JWKS; the built-in key ring when absent. */
  jwksUrl?: string;
  keyRing?: KeyRing;
}): (token: string) => Promise<Principal> {
  const base = { issuer: opts.issuer, audience: opts.audience, accountClaim: opts.accountClaim };
  if (opts.jwksUrl) return cachedVerifier(createTokenVerifier({ ...base, jwks: opts.jwksUrl }));
  const ring = opts.keyRing;
  if (!ring) throw new Error('the built-in issuer needs a key ring');
  let verify = createTokenVerifier({ ...base, jwks: ring.jwks() });
  // A rotation or retirement replaces the verifier, so tokens of a new key verify as soon as it is published.
  ring.onChange(() => {
    verify = createTokenVerifier({ ...base, jwks: ring.jwks() });
  });
  return cachedVerifier((token) => verify(token));
}

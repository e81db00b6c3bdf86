import { createTokenVerifier, type Principal } from '@cc/kit';
import type { KeyRing } from './key-ring';

/**
 * Verifies bearer tokens: against the key ring's published keys, or an external issuer's JWKS URL.
 * The kit's verifier remembers verified tokens (bounded LRU, each until its expiry), so a busy client
 * costs one signature check.
 */
export function gatewayVerifier(opts: {
  issuer: string;
  audience: string;
  accountClaim: string;
  /** External OIDC issuer's JWKS; the built-in key ring when absent. */
  jwksUrl?: string;
  keyRing?: KeyRing;
}): (token: string) => Promise<Principal> {
  const base = { issuer: opts.issuer, audience: opts.audience, accountClaim: opts.accountClaim };
  if (opts.jwksUrl) return createTokenVerifier({ ...base, jwks: opts.jwksUrl });
  const ring = opts.keyRing;
  if (!ring) throw new Error('the built-in issuer needs a key ring');
  let verify = createTokenVerifier({ ...base, jwks: ring.jwks() });
  // A rotation or retirement replaces the verifier (and so its cache): tokens of a retired key stop at once.
  ring.onChange(() => {
    verify = createTokenVerifier({ ...base, jwks: ring.jwks() });
  });
  return (token) => verify(token);
}

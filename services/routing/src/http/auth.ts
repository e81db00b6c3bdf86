import { createTokenVerifier, type Principal } from '@cc/kit';
import type { Config } from '../config';

/** The token verifier of this service (defence in depth: the gateway verified the token too). */
export function verifierFor(
  config: Pick<Config, 'AUTH_ISSUER' | 'AUTH_AUDIENCE' | 'AUTH_JWKS_URL' | 'AUTH_ACCOUNT_CLAIM'>,
): (token: string) => Promise<Principal> {
  return createTokenVerifier({
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    jwks: config.AUTH_JWKS_URL,
    accountClaim: config.AUTH_ACCOUNT_CLAIM,
  });
}

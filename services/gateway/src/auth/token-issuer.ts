import { SignJWT } from 'jose';
import {
  type AccessClaims,
  accessTokenClaims,
  accessTokenSeconds,
  v0TokenClaims,
  v0TokenSeconds,
} from '../domain/token-claims';
import type { KeyRing } from './key-ring';

/** The token endpoint's 200 body (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer' | 'bearer';
  expires_in: number;
  scope?: string;
}

/** Signs access tokens with the key ring's active key (ES256, `typ: at+jwt`, RFC 9068). */
export class TokenIssuer {
  constructor(
    private readonly keys: KeyRing,
    private readonly opts: { issuer: string; audience: string },
  ) {}

  /** A 7200-second API token of one scope for a client of an account. */
  async accessToken(p: { accountId: string; clientId: string; scope: string }): Promise<TokenResponse> {
    const token = await this.sign(accessTokenClaims(p), accessTokenSeconds);
    return { access_token: token, token_type: 'Bearer', expires_in: accessTokenSeconds, scope: p.scope };
  }

  /** A one-hour v0 token for an account key (valid only on /v0 paths of that key). */
  async v0Token(p: { accountId: string; accountKey: string }): Promise<TokenResponse> {
    const token = await this.sign(v0TokenClaims(p), v0TokenSeconds);
    return { access_token: token, token_type: 'bearer', expires_in: v0TokenSeconds };
  }

  /**
   * Signs claims with the active key. `issuedAt` and `audience` exist for tests that need expired or foreign
   * tokens signed by the real key.
   */
  async sign(
    claims: AccessClaims,
    lifetimeSeconds: number,
    opts: { issuedAt?: Date; audience?: string } = {},
  ): Promise<string> {
    const { kid, privateKey } = await this.keys.active();
    const iat = Math.floor((opts.issuedAt ?? new Date()).getTime() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
      .setIssuer(this.opts.issuer)
      .setAudience(opts.audience ?? this.opts.audience)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(iat + lifetimeSeconds)
      .sign(privateKey);
  }
}

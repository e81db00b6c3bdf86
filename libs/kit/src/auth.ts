import { str, url } from 'envalid';
import type { RequestHandler } from 'express';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JSONWebKeySet,
  type JWTPayload,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import { LRUCache } from 'lru-cache';
import { AppError } from './errors';

/** The caller, as proven by a verified bearer token. Every query is scoped by `accountId`. */
export interface Principal {
  accountId: string;
  /** OAuth client id (`sub`). */
  clientId: string;
  scopes: string[];
  /** `v0` for tokens of the deprecated v0 flow, valid only on `/v0` paths. */
  flavour: 'api' | 'v0';
  /** Agent id for agent-desktop tokens, when the token names one. */
  agentId?: string;
}

/** Where tokens come from: the built-in issuer (the gateway) or an external OIDC issuer. */
export interface TokenVerifierOptions {
  issuer: string;
  audience: string;
  /** JWKS URL (remote, cached by jose) or an in-memory key set (tests, the gateway itself). */
  jwks: string | JSONWebKeySet;
  /** Claim holding the account id (default `account_id`). */
  accountClaim?: string;
  /** Verified tokens remembered (LRU, each until its `exp`); 0 turns the cache off (default 10,000). */
  cacheSize?: number;
  /** Longest lifetime accepted: `exp` at most this many seconds ahead (default 24 h; the gateway issues 2 h). */
  maxLifetimeSeconds?: number;
}

/** Default cap on a token's remaining lifetime: a leaked token with `exp` years ahead is not a key for years. */
export const defaultMaxTokenLifetimeSeconds = 24 * 60 * 60;
const clockToleranceSeconds = 30;

/** The claim names of this suite's tokens. */
export const claims = { account: 'account_id', scope: 'scope', flavour: 'cc_flavour', agent: 'agent_id' } as const;

/** Algorithms accepted; `none` and HMAC are never accepted, so a public key cannot be used as a secret. */
const algorithms = ['ES256', 'RS256', 'EdDSA', 'PS256'];

/** Verifies bearer tokens (signature, issuer, audience, expiry, algorithm) and returns the principal. */
export function createTokenVerifier(opts: TokenVerifierOptions): (token: string) => Promise<Principal> {
  const keys =
    typeof opts.jwks === 'string'
      ? createRemoteJWKSet(new URL(opts.jwks), { cooldownDuration: 30_000 })
      : createLocalJWKSet(opts.jwks);
  const accountClaim = opts.accountClaim ?? claims.account;
  // A signature check costs ~125 µs per request; a verified token is remembered until its expiry.
  const cache =
    (opts.cacheSize ?? 10_000) > 0 ? new LRUCache<string, Principal>({ max: opts.cacheSize ?? 10_000 }) : null;
  const verify = async (token: string): Promise<{ principal: Principal; exp?: number }> => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: opts.issuer,
        audience: opts.audience,
        algorithms,
        clockTolerance: clockToleranceSeconds,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      throw new AppError('AUTH.UNAUTHENTICATED', describeJoseError(err), [], { wwwAuthenticate: 'invalid_token' });
    }
    const maxLifetime = opts.maxLifetimeSeconds ?? defaultMaxTokenLifetimeSeconds;
    if ((payload.exp as number) - Date.now() / 1000 > maxLifetime + clockToleranceSeconds) {
      throw new AppError('AUTH.UNAUTHENTICATED', `The token's lifetime exceeds the accepted ${maxLifetime} s`, [], {
        wwwAuthenticate: 'invalid_token',
      });
    }
    const accountId = payload[accountClaim];
    if (typeof accountId !== 'string' || !accountId || typeof payload.sub !== 'string') {
      throw new AppError('AUTH.UNAUTHENTICATED', 'The token names no account or client', [], {
        wwwAuthenticate: 'invalid_token',
      });
    }
    const scope = typeof payload[claims.scope] === 'string' ? (payload[claims.scope] as string) : '';
    const agentId = payload[claims.agent];
    const principal: Principal = {
      accountId,
      clientId: payload.sub,
      scopes: scope.split(' ').filter(Boolean),
      flavour: payload[claims.flavour] === 'v0' ? 'v0' : 'api',
      ...(typeof agentId === 'string' ? { agentId } : {}),
    };
    return { principal, ...(typeof payload.exp === 'number' ? { exp: payload.exp } : {}) };
  };
  return async (token) => {
    const hit = cache?.get(token);
    if (hit) return hit;
    const { principal, exp } = await verify(token);
    // Only tokens with an expiry are cached, and never past it (no clock tolerance on the cache).
    const ttl = exp === undefined ? 0 : exp * 1000 - Date.now();
    if (cache && ttl > 0) cache.set(token, principal, { ttl });
    return principal;
  };
}

function describeJoseError(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'The token has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `The token's ${err.claim} claim is not accepted`;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'The token signature is invalid';
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'The token algorithm is not accepted';
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'The token was signed by an unknown key';
  if (err instanceof joseErrors.JWKSTimeout || (err as { code?: string })?.code === 'ERR_JOSE_GENERIC')
    return 'The token could not be verified';
  return 'The token is malformed';
}

/**
 * Requires a valid bearer token of the given scope; sets `res.locals.principal`. No or bad token →
 * 401, wrong scope → 403. v0 tokens are accepted only when `v0` is true (the /v0 API), and only there.
 */
export function requireAuth(
  verify: (token: string) => Promise<Principal>,
  scope: string,
  opts: { v0?: boolean } = {},
): RequestHandler {
  return async (req, res, next) => {
    // Node keeps only the first of repeated Authorization headers; two credentials are ambiguous, so refuse.
    if (countHeader(req.rawHeaders, 'authorization') > 1) {
      const message = 'authorization must be sent once (the request has several Authorization headers)';
      return next(
        new AppError('REQUEST.VALIDATION', 'The request has several Authorization headers', [
          { pointer: '/headers/authorization', message },
        ]),
      );
    }
    const header = req.header('authorization') ?? '';
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(header);
    if (!match?.[1]) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return next(
        new AppError(
          'AUTH.UNAUTHENTICATED',
          header ? 'The Authorization header is not a bearer token' : 'A bearer token is required',
        ),
      );
    }
    try {
      const principal = await verify(match[1]);
      if ((principal.flavour === 'v0') !== Boolean(opts.v0)) {
        throw new AppError(
          'AUTH.UNAUTHENTICATED',
          opts.v0 ? 'This API takes only v0 tokens' : 'A v0 token is valid only on /v0 paths',
          [],
          {
            wwwAuthenticate: 'invalid_token',
          },
        );
      }
      if (!principal.scopes.includes(scope)) {
        res.setHeader('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${scope}"`);
        return next(
          new AppError('AUTH.FORBIDDEN', `This operation requires the scope '${scope}'`, [], { requiredScope: scope }),
        );
      }
      res.locals.principal = principal;
      next();
    } catch (err) {
      if (err instanceof AppError && err.extra.wwwAuthenticate)
        res.setHeader('WWW-Authenticate', `Bearer error="${err.extra.wwwAuthenticate}"`);
      next(err);
    }
  };
}

/** How many times a header occurs in a request's raw header list (names compared case-insensitively). */
export function countHeader(rawHeaders: readonly string[], name: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === name) n++;
  return n;
}

/** The verified caller of this request (set by {@link requireAuth}); throws if the route forgot auth. */
export function principalOf(res: { locals: Record<string, unknown> }): Principal {
  const p = res.locals.principal as Principal | undefined;
  if (!p) throw new Error('route reached without requireAuth');
  return p;
}

/** The auth settings every service reads (see `loadConfig`). */
export function authConfigSpec(defaults: { jwksUrl: string }) {
  return {
    AUTH_ISSUER: str({
      default: 'cc-suite',
      desc: 'Expected `iss` of access tokens (the gateway, or an external OIDC issuer)',
    }),
    AUTH_AUDIENCE: str({ default: 'cc-suite-api', desc: 'Expected `aud` of access tokens' }),
    AUTH_JWKS_URL: url({ default: defaults.jwksUrl, desc: 'JWKS document holding the token signing keys' }),
    AUTH_ACCOUNT_CLAIM: str({
      default: claims.account,
      desc: 'Claim carrying the account id (for an external issuer)',
    }),
  };
}

import { type V0Deprecation, v0DeprecationHeaders, v0Replacements } from '@cc/contracts';
import { AppError, type Principal, principalOf, requireAuth } from '@cc/kit';
import type { Request, RequestHandler } from 'express';
import { allowedMethods, type ResolvedRoute, resolveRoute, unsafePathReason } from '../domain/route-table';
import { v0Scope } from '../domain/token-claims';
import type { AccountLimits } from '../identity/account-limits';
import type { ClientRateLimiter } from './rate-limit';

declare global {
  namespace Express {
    interface Locals {
      /** The route table entry of this request (set by {@link resolveRequestRoute}). */
      route?: ResolvedRoute;
    }
  }
}

/** The route of a request, when {@link resolveRequestRoute} found one. */
export function routeOf(res: { locals: Record<string, unknown> }): ResolvedRoute | undefined {
  return res.locals.route as ResolvedRoute | undefined;
}

/**
 * Resolves the request's route: unsafe paths are a 400, unknown ones fall through to the 404 handler, a path the
 * OpenAPI documents name with other methods is a 405 with `Allow`, and OPTIONS is answered with `Allow`.
 */
export const resolveRequestRoute: RequestHandler = (req, res, next) => {
  const why = unsafePathReason(req.path);
  if (why) throw new AppError('REQUEST.VALIDATION', why, [{ pointer: '/path', message: why }]);
  const route = resolveRoute(req.path);
  if (!route) return next();
  const allowed =
    route.rule.name === 'docs' || route.rule.name === 'console' ? ['GET', 'HEAD'] : allowedMethods(req.path);
  if (req.method === 'OPTIONS') {
    // Answered here (CORS preflights were answered before): never passed on unauthenticated.
    if (allowed) res.setHeader('Allow', [...allowed, 'OPTIONS'].join(', '));
    return void res.status(204).end();
  }
  if (allowed && !allowed.includes(req.method)) {
    res.setHeader('Allow', allowed.join(', '));
    throw new AppError(
      'REQUEST.METHOD_NOT_ALLOWED',
      `${req.method} is not allowed on ${req.path}; allowed: ${allowed.join(', ')}`,
    );
  }
  res.locals.route = route;
  next();
};

const v0StatisticsEndpoint = /^\/v0\/[^/]+\/statistics(?:\/([^/]+))?/;

/** Sets the v0 deprecation headers on an answer to a /v0 statistics path. */
export type V0DeprecationMarker = (res: { setHeader(name: string, value: string): unknown }, path: string) => void;

/**
 * The v0 deprecation headers (the contract's one definition) for each endpoint, computed once: `Link` names the
 * replacement of a known endpoint (`{name}` after `statistics/`), only the documentation otherwise.
 */
export function v0DeprecationMarker(d: V0Deprecation): V0DeprecationMarker {
  const known = new Map(Object.keys(v0Replacements).map((name) => [name, v0DeprecationHeaders(name, d)]));
  const other = v0DeprecationHeaders(undefined, d);
  return (res, path) => {
    const endpoint = v0StatisticsEndpoint.exec(path)?.[1];
    for (const [header, value] of (endpoint !== undefined && known.get(endpoint)) || other) {
      res.setHeader(header, value);
    }
  };
}

/**
 * Marks the gateway's own answers on /v0 statistics paths (400, 401, 403, 404, 405, 429, 502/503/504) with the v0
 * deprecation headers, as the statistics service marks its answers (which, proxied, replace these): every v0
 * response carries them, whoever gives it.
 */
export function markV0Deprecated(mark: V0DeprecationMarker): RequestHandler {
  return (req, res, next) => {
    if (req.path.startsWith('/v0/') && resolveRoute(req.path)?.rule.name === 'v0-statistics') mark(res, req.path);
    next();
  };
}

/**
 * Verifies the bearer token and its scope for the route (ARCHITECTURE §2): no, malformed, wrongly signed or expired
 * token → 401, wrong scope → 403; v0 tokens only on /v0 paths of their own account key.
 */
export function authenticate(verify: (token: string) => Promise<Principal>): RequestHandler {
  const byScope = new Map<string, RequestHandler>();
  const v0 = requireAuth(verify, v0Scope, { v0: true });
  return (req, res, next) => {
    const route = routeOf(res);
    if (!route || route.rule.access.kind === 'public') return next();
    if (route.rule.access.kind === 'v0') {
      return v0(req, res, (err?: unknown) => {
        if (err) return next(err);
        if (principalOf(res).clientId !== route.accountKey) {
          return next(new AppError('AUTH.FORBIDDEN', 'The token was issued for another account key'));
        }
        next();
      });
    }
    const { scope } = route.rule.access;
    let guard = byScope.get(scope);
    if (!guard) {
      guard = requireAuth(verify, scope);
      byScope.set(scope, guard);
    }
    return guard(req, res, next);
  };
}

/**
 * Takes one request from the calling client's allowance (its account's override or the default); sets the
 * `RateLimit-*` headers on every authenticated response, and answers 429 with `Retry-After` when it is spent.
 */
export function rateLimit(limiter: ClientRateLimiter, limits: AccountLimits): RequestHandler {
  return async (_req, res, next) => {
    const principal = res.locals.principal as Principal | undefined;
    if (!principal) return next();
    const refused = await takeAllowance(limiter, limits, principal, res);
    if (refused) throw refused;
    next();
  };
}

/**
 * Takes one request from the principal's allowance and sets the `RateLimit-*` headers; returns the 429 error when
 * the allowance is spent (shared by the middleware and the gateway's fast path, so both count and answer alike).
 */
export async function takeAllowance(
  limiter: ClientRateLimiter,
  limits: AccountLimits,
  principal: Principal,
  res: { setHeader(name: string, value: string): unknown },
): Promise<AppError | undefined> {
  const decision = await limiter.take(
    `${principal.accountId}\u0000${principal.flavour}\u0000${principal.clientId}`,
    await limits.of(principal.accountId),
  );
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
  res.setHeader('RateLimit-Policy', decision.policy);
  if (decision.allowed) return undefined;
  return new AppError(
    'REQUEST.RATE_LIMITED',
    `The client exceeded its rate limit; retry after ${decision.resetSeconds} s`,
    [],
    { retryAfter: decision.resetSeconds },
  );
}

/** True when the request declares a body (a length above zero or chunked transfer). */
export function declaresBody(req: Request): boolean {
  return Number(req.header('content-length') ?? 0) > 0 || req.header('transfer-encoding') !== undefined;
}

/**
 * Body rules of proxied requests, checked before any byte goes upstream: a body on POST/PUT/PATCH must be JSON
 * (415) except on media routes (recordings), and a declared length above the route's limit is a 413 (the
 * streamed count catches chunked bodies).
 */
export function proxiedBodyRules(jsonLimitBytes: number, mediaLimitBytes = jsonLimitBytes): RequestHandler {
  return (req, res, next) => {
    const route = routeOf(res);
    if (!route || route.rule.target === 'gateway') return next();
    const limitBytes = route.rule.mediaBody ? mediaLimitBytes : jsonLimitBytes;
    if (
      !route.rule.mediaBody &&
      declaresBody(req) &&
      ['POST', 'PUT', 'PATCH'].includes(req.method) &&
      !req.is(['application/json', 'application/*+json'])
    ) {
      throw new AppError('REQUEST.UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json');
    }
    const length = Number(req.header('content-length') ?? 0);
    if (length > limitBytes) {
      res.setHeader('Connection', 'close');
      throw new AppError('REQUEST.TOO_LARGE', `The request body exceeds the limit of ${limitBytes} bytes`, [], {
        limit: limitBytes,
      });
    }
    next();
  };
}

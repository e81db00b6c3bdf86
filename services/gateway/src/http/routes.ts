import { type Logger, leaveBodiesUnparsed, type Principal } from '@cc/kit';
import type { Express } from 'express';
import { resolveRoute } from '../domain/route-table';
import type { EventStreamHub } from '../events/event-stream.hub';
import type { AccountLimits } from '../identity/account-limits';
import { type AdminRoutesDeps, adminRoutes } from './admin.handler';
import { consoleRoutes } from './console.handler';
import { cors } from './cors.middleware';
import { docsRoutes } from './docs.handler';
import { eventStreamRoutes } from './event-stream.handler';
import {
  authenticate,
  markV0Deprecated,
  proxiedBodyRules,
  rateLimit,
  resolveRequestRoute,
  type V0DeprecationMarker,
} from './guard.middleware';
import type { ClientRateLimiter } from './rate-limit';
import { type TokenRoutesDeps, tokenRoutes } from './token.handler';

/** Everything the gateway's HTTP surface is built from. */
export interface GatewayHttpDeps {
  verify: (token: string) => Promise<Principal>;
  limiter: ClientRateLimiter;
  accountLimits: AccountLimits;
  corsOrigins: string[];
  bodyLimitBytes: number;
  /** Limit of media bodies (recording uploads). */
  mediaBodyLimitBytes?: number;
  token: TokenRoutesDeps;
  admin: AdminRoutesDeps;
  /** Folder of the built console (index.html, assets/), or undefined: /console then answers 404. */
  consoleDir?: string;
  /** Live events per account (GET /events/stream). */
  eventStream: EventStreamHub;
  /** Streams routed requests to the owning services. */
  proxy: import('express').RequestHandler;
  /** Marks answers on /v0 statistics paths as deprecated. */
  markV0: V0DeprecationMarker;
  logger: Logger;
}

/**
 * Mounts the gateway, in order: CORS, the v0 deprecation headers, route resolution (400/404/405), token, docs and console endpoints (public),
 * authentication and scope (401/403), per-client rate limit (429), the event stream and the gateway's own admin API,
 * then the body
 * rules (415/413) and the proxy to the owning service.
 */
export function mountRoutes(app: Express, deps: GatewayHttpDeps): void {
  // Proxied bodies stream through untouched and the token endpoints read forms: the kit parses only the
  // gateway's own JSON admin API.
  leaveBodiesUnparsed(app, (req) => {
    const route = resolveRoute(req.path);
    return !route || route.rule.target !== 'gateway' || route.rule.name === 'token' || route.rule.name === 'v0-token';
  });
  app.use(cors(deps.corsOrigins));
  app.use(markV0Deprecated(deps.markV0));
  app.use(resolveRequestRoute);
  app.use(tokenRoutes(deps.token));
  app.use(docsRoutes());
  app.use(consoleRoutes(deps.consoleDir));
  app.use(authenticate(deps.verify));
  app.use(rateLimit(deps.limiter, deps.accountLimits));
  app.use(eventStreamRoutes(deps.eventStream));
  app.use(adminRoutes(deps.admin));
  app.use(proxiedBodyRules(deps.bodyLimitBytes, deps.mediaBodyLimitBytes));
  app.use(deps.proxy);
}

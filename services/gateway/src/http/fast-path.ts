import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import {
  acceptedRequestId,
  callerTraceparent,
  countHeader,
  type Logger,
  type Metrics,
  type Principal,
  redactQuery,
  runInContext,
  SpanKind,
  SpanStatusCode,
  startSpan,
  traceparentOf,
} from '@cc/kit';
import { methodAllowed, type ResolvedRoute, resolveRoute, unsafePathReason } from '../domain/route-table';
import { v0Scope } from '../domain/token-claims';
import type { AccountLimits } from '../identity/account-limits';
import { takeAllowance, type V0DeprecationMarker } from './guard.middleware';
import { sendProblem, type UpstreamProxy } from './proxy.handler';
import type { ClientRateLimiter } from './rate-limit';

/** What the fast path needs: the same verifier, limits and proxy as the Express chain. */
export interface FastPathDeps {
  verify: (token: string) => Promise<Principal>;
  limiter: ClientRateLimiter;
  accountLimits: AccountLimits;
  /** CORS is configured: requests with an Origin take the Express chain (its CORS middleware answers them). */
  corsEnabled: boolean;
  bodyLimitBytes: number;
  mediaBodyLimitBytes?: number;
  proxy: Pick<UpstreamProxy, 'forward'>;
  /** Marks answers on /v0 statistics paths as deprecated (the 429 given here too). */
  markV0: V0DeprecationMarker;
  logger: Logger;
  metrics: Metrics;
}

/** Characters after which Express's URL parser leaves its fast path (parseurl): such URLs take the Express chain. */
const unusualUrl = /[\t\n\f\r #\u00a0\ufeff]/;
const bearer = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i;
/** JSON media types as the Express chain accepts them, stricter on parameters (anything else takes that chain). */
const jsonMediaType = /^application\/(?:[A-Za-z0-9!#$&^_.+-]+\+)?json\s*(?:;\s*charset="?[A-Za-z0-9_-]+"?\s*)?$/i;
const bodyMethods = new Set(['POST', 'PUT', 'PATCH']);
const probes = new Set(['/healthz', '/readyz', '/metrics']);

/** A request the fast path has checked: its route, path, bearer token and the access the route requires. */
export interface FastPathCandidate {
  route: ResolvedRoute;
  path: string;
  token: string;
  scope: string;
  v0: boolean;
}

/** The parts of a request the fast path decides on. */
export type RequestHead = Pick<IncomingMessage, 'url' | 'method' | 'headers' | 'rawHeaders'>;

/**
 * Whether the fast path may take a request, and if so its route and token: a proxied route, a documented method,
 * exactly one well-formed bearer token, no CORS origin to answer, and a body the rules accept (JSON within the
 * limit, or media within the media limit). Undefined hands the request to the Express chain. Pure, no I/O.
 */
export function fastPathCandidate(
  req: RequestHead,
  opts: { corsEnabled: boolean; jsonLimitBytes: number; mediaLimitBytes: number },
): FastPathCandidate | undefined {
  const url = req.url;
  if (!url || url.charCodeAt(0) !== 47 /* '/' */ || unusualUrl.test(url)) return undefined;
  const method = req.method ?? 'GET';
  if (method === 'OPTIONS') return undefined;
  const h = req.headers;
  if (opts.corsEnabled && h.origin !== undefined) return undefined;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (probes.has(path) || unsafePathReason(path)) return undefined;
  const route = resolveRoute(path);
  if (!route || route.rule.target === 'gateway' || route.rule.access.kind === 'public') return undefined;
  if (!methodAllowed(path, method)) return undefined;
  const auth = h.authorization;
  const token = auth ? bearer.exec(auth)?.[1] : undefined;
  if (!token || countHeader(req.rawHeaders, 'authorization') > 1) return undefined;
  const length = Number(h['content-length'] ?? 0);
  if (!(length >= 0) || length > (route.rule.mediaBody ? opts.mediaLimitBytes : opts.jsonLimitBytes)) return undefined;
  const hasBody = length > 0 || h['transfer-encoding'] !== undefined;
  if (hasBody && !route.rule.mediaBody && bodyMethods.has(method) && !jsonMediaType.test(h['content-type'] ?? ''))
    return undefined;
  const access = route.rule.access;
  return access.kind === 'v0'
    ? { route, path, token, scope: v0Scope, v0: true }
    : { route, path, token, scope: access.kind === 'scope' ? access.scope : '', v0: false };
}

/** Whether the verified principal may call the candidate's route, exactly as the Express chain's checks decide. */
export function fastPathPermits(c: FastPathCandidate, p: Principal): boolean {
  return (p.flavour === 'v0') === c.v0 && p.scopes.includes(c.scope) && (!c.v0 || p.clientId === c.route.accountKey);
}

/**
 * The gateway's hot path in front of Express: a proxied request that passes every check (route, method, one bearer
 * token of the route's scope, body rules) is authenticated, rate limited, logged and streamed upstream without the
 * Express middleware chain (its router, pino-http's per-request child logger, ~25 layers of matching). Anything
 * else (no or bad token, wrong scope, 400/404/405, OPTIONS and CORS, bodies the rules refuse, the gateway's own
 * endpoints, probes) goes to the Express app unchanged, which stays the one place that words errors. Nothing with a
 * side effect (the rate limit, the request id, the log line) happens before the fast path has taken the request,
 * so a request handed on is handled exactly once.
 */
export function withFastPath(app: RequestListener, deps: FastPathDeps): RequestListener {
  const limits = {
    corsEnabled: deps.corsEnabled,
    jsonLimitBytes: deps.bodyLimitBytes,
    mediaLimitBytes: deps.mediaBodyLimitBytes ?? deps.bodyLimitBytes,
  };
  // The access line's shape is fixed and holds nothing to censor (the URL's query is censored by redactQuery, the
  // request id is one the gateway accepts or made): written without pino's redact paths and the deep redaction,
  // which cost ~5 % of the gateway's CPU per request for a line that never changes. Same destination and format.
  const accessLog = deps.logger.child({}, { redact: [], formatters: { log: (o: object) => o } });

  const serve = async (req: IncomingMessage, res: ServerResponse, c: FastPathCandidate, principal: Principal) => {
    const startedAt = Date.now();
    const method = req.method ?? 'GET';
    const requestId = acceptedRequestId(req.headers['x-request-id'] as string | undefined);
    res.setHeader('x-request-id', requestId);
    if (c.v0) deps.markV0(res, c.path);
    const { span, ctx } = startSpan('gateway', `${method} ${c.path}`, {
      kind: SpanKind.SERVER,
      parent: callerTraceparent(req.headers.traceparent as string | undefined),
      attributes: { 'http.request.method': method, 'url.path': c.path, 'cc.request_id': requestId },
    });
    const sc = span.spanContext();
    const traceparent = traceparentOf(span);
    let done = false;
    // One access-log line, the duration metric and the span's end, when the answer is sent or the caller goes.
    const finish = () => {
      if (done) return;
      done = true;
      const status = res.statusCode;
      const aborted = !res.writableFinished;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      const elapsedMs = Date.now() - startedAt;
      deps.metrics.httpDuration.observe({ method, route: c.route.rule.name, status: String(status) }, elapsedMs / 1000);
      const level = aborted || status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      accessLog[level](
        {
          req: { id: requestId, method, url: redactQuery(req.url ?? '') },
          res: { statusCode: status },
          responseTime: elapsedMs,
          trace_id: sc.traceId,
          span_id: sc.spanId,
        },
        aborted ? 'request aborted' : 'request completed',
      );
    };
    res.once('finish', finish);
    res.once('close', finish);
    // The caller went away while its token was being verified: nothing to send, nothing to ask upstream.
    if (res.destroyed) return finish();
    try {
      const refused = await takeAllowance(deps.limiter, deps.accountLimits, principal, res);
      if (res.destroyed) return;
      if (refused) return sendProblem(req, res, refused);
      runInContext(ctx, () => deps.proxy.forward(req, res, c.route, requestId, traceparent));
    } catch (err) {
      // The account's limits could not be read (store down on a cache miss): a 503, as the Express chain answers.
      deps.logger.error({ err, requestId }, 'request failed');
      if (!res.headersSent) sendProblem(req, res, err);
    }
  };

  return (req, res) => {
    const c = fastPathCandidate(req, limits);
    if (!c) return void app(req, res);
    deps
      .verify(c.token)
      .then(
        (principal) => (fastPathPermits(c, principal) ? serve(req, res, c, principal) : app(req, res)),
        // A token the verifier refuses: the Express chain verifies again and words the 401.
        () => app(req, res),
      )
      .catch((err) => {
        deps.logger.error({ err }, 'request failed');
        if (!res.headersSent) sendProblem(req, res, err);
      });
  };
}

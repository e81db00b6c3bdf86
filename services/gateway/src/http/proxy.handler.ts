import {
  Agent,
  type ClientRequest,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { AppError, type Logger, toProblem } from '@cc/kit';
import type { RequestHandler } from 'express';
import type { ResolvedRoute, Upstream } from '../domain/route-table';
import { routeOf } from './guard.middleware';

/** What the proxy needs: where each service is, how long to wait, how much body to pass. */
export interface ProxyOptions {
  upstreams: Record<Upstream, string>;
  timeoutMs: number;
  bodyLimitBytes: number;
  /** Limit of media bodies (routes with `mediaBody`, e.g. recordings); default bodyLimitBytes. */
  mediaBodyLimitBytes?: number;
  logger: Logger;
}

const unavailableCodes = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN']);
const timeoutCodes = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT']);

/** The coded error for an upstream failure: refused or broken → 502, unreachable → 503, silent → 504. */
export function upstreamError(upstream: string, code: string | undefined, timedOut: boolean): AppError {
  if (timedOut || (code && timeoutCodes.has(code))) {
    return new AppError('DEPENDENCY.TIMEOUT', `The ${upstream} service did not answer in time`);
  }
  if (code && unavailableCodes.has(code)) {
    return new AppError('DEPENDENCY.UNAVAILABLE', `The ${upstream} service is unavailable`);
  }
  return new AppError('DEPENDENCY.BAD_GATEWAY', `The ${upstream} service refused or broke the connection`);
}

/**
 * Answers an error as problem+json outside Express (the proxy, the fast path), with `Retry-After` as the kit's
 * problem handler sets it (a 429's wait, 5 s on a 503).
 */
export function sendProblem(
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
  extraHeaders: Record<string, string> = {},
) {
  const problem = toProblem(err, (req as { originalUrl?: string }).originalUrl ?? req.url);
  for (const [k, v] of Object.entries(extraHeaders)) res.setHeader(k, v);
  if (err instanceof AppError && typeof err.extra.retryAfter === 'number')
    res.setHeader('Retry-After', String(err.extra.retryAfter));
  else if (problem.status === 503) res.setHeader('Retry-After', '5');
  res.statusCode = problem.status;
  res.setHeader('Content-Type', 'application/problem+json');
  res.end(JSON.stringify(problem));
}

/** Headers of one hop only (RFC 9110 §7.6.1): never forwarded, either way. */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
]);

/** One upstream service: where it is, parsed once, and its keep-alive agent. */
interface Target {
  name: Upstream;
  request: typeof httpRequest;
  agent: Agent;
  protocol: string;
  hostname: string;
  port: number;
  host: string;
  basePath: string;
}

function targetOf(name: Upstream, url: string): Target {
  const u = new URL(url);
  const tls = u.protocol === 'https:';
  // Keep-alive sockets per service: a request reuses an idle one instead of a TCP (and TLS) handshake.
  const agentOpts = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64 };
  return {
    name,
    request: tls ? (httpsRequest as typeof httpRequest) : httpRequest,
    agent: tls ? new HttpsAgent(agentOpts) : new Agent(agentOpts),
    protocol: u.protocol,
    hostname: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port || (tls ? 443 : 80)),
    host: u.host,
    basePath: u.pathname === '/' ? '' : u.pathname.replace(/\/$/, ''),
  };
}

/** Headers the proxy writes itself (below), so the caller's are not sent twice. */
const rewritten = new Set(['host', 'x-forwarded-for', 'x-forwarded-port', 'x-forwarded-proto', 'x-forwarded-host']);

/**
 * The upstream request's headers: the caller's minus hop-by-hop ones, the service's Host, and X-Forwarded-*. As a
 * flat name/value list, which Node writes as it is instead of storing each header through `setHeader` first.
 */
function forwardHeaders(req: IncomingMessage, t: Target): string[] {
  const out: string[] = [];
  const h = req.headers;
  for (const name in h) {
    if (hopByHop.has(name) || rewritten.has(name)) continue;
    const value = h[name];
    if (typeof value === 'string') out.push(name, value);
    else if (value) for (const v of value) out.push(name, v);
  }
  const socket = req.socket as IncomingMessage['socket'] & { encrypted?: boolean };
  const encrypted = Boolean(socket.encrypted);
  const append = (prior: string | string[] | undefined, value: string) => (prior ? `${prior},${value}` : value);
  out.push(
    'host',
    t.host,
    'x-forwarded-for',
    append(h['x-forwarded-for'], socket.remoteAddress ?? ''),
    'x-forwarded-port',
    append(h['x-forwarded-port'], String(socket.localPort ?? (encrypted ? 443 : 80))),
    'x-forwarded-proto',
    append(h['x-forwarded-proto'], encrypted ? 'https' : 'http'),
    'x-forwarded-host',
    (h['x-forwarded-host'] as string | undefined) ?? h.host ?? '',
  );
  return out;
}

/**
 * Streams requests to the owning services with Node's own `http` client and one keep-alive agent per service (no
 * proxy library: ~15 % of the gateway's CPU went to http-proxy): the original Authorization header (services verify
 * again), `x-request-id` and a child `traceparent`, hop-by-hop headers dropped both ways, a timeout, a streamed
 * body-size count, and upstream failures answered as 502/503/504 problems by the gateway itself.
 */
export interface UpstreamProxy {
  /** The Express handler: proxies the request of a resolved upstream route, else `next()`. */
  handler: RequestHandler;
  /**
   * Streams the request to its route's service with the given request id and traceparent; false (nothing done)
   * when the route is the gateway's own.
   */
  forward(
    req: IncomingMessage,
    res: ServerResponse,
    route: ResolvedRoute,
    requestId: string,
    traceparent: string,
  ): boolean;
  close(): void;
}

export function createProxy(opts: ProxyOptions): UpstreamProxy {
  const targets = new Map<Upstream, Target>();
  for (const [name, url] of Object.entries(opts.upstreams) as [Upstream, string][])
    targets.set(name, targetOf(name, url));

  const forward = (req: IncomingMessage, res: ServerResponse, t: Target, limitBytes: number) => {
    const startedAt = Date.now();
    let timedOut = false;
    let tooLarge = false;
    let proxyReq: ClientRequest;
    const options: RequestOptions = {
      agent: t.agent,
      protocol: t.protocol,
      hostname: t.hostname,
      port: t.port,
      method: req.method,
      path: t.basePath + (req.url ?? '/'),
      headers: forwardHeaders(req, t),
    };
    try {
      proxyReq = t.request(options);
    } catch (err) {
      // Invalid header values and the like: refused before anything was sent.
      return sendProblem(req, res, upstreamError(t.name, (err as NodeJS.ErrnoException).code, false));
    }
    // Idle time on the upstream socket, as before: a service silent this long is a 504.
    proxyReq.setTimeout(opts.timeoutMs, () => {
      timedOut = true;
      proxyReq.destroy();
    });
    proxyReq.on('response', (proxyRes) => {
      if (tooLarge) return void proxyRes.resume();
      const headers = proxyRes.headers;
      for (const name in headers) {
        const value = headers[name];
        if (value !== undefined && !hopByHop.has(name)) res.setHeader(name, value);
      }
      res.writeHead(proxyRes.statusCode ?? 502, proxyRes.statusMessage);
      proxyRes.pipe(res);
      // A client that goes away mid-response must not leave the upstream stream open (SSE and long bodies).
      res.on('close', () => {
        if (!res.writableEnded) proxyRes.destroy();
      });
    });
    proxyReq.on('error', (err: NodeJS.ErrnoException) => {
      if (tooLarge || res.destroyed) return;
      const error = upstreamError(t.name, err.code, timedOut);
      opts.logger.warn(
        { upstream: t.name, code: err.code, err: err.message, elapsedMs: Date.now() - startedAt },
        'upstream request failed',
      );
      if (res.headersSent) return void res.destroy();
      sendProblem(req, res, error);
    });
    // The caller gone before the answer: the upstream request goes too.
    res.on('close', () => {
      if (!res.writableEnded) proxyReq.destroy();
    });

    // Counted in the same tick the body is piped upstream, so no chunk passes uncounted.
    let seen = 0;
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen <= limitBytes || tooLarge) return;
      tooLarge = true;
      req.off('data', onData);
      req.unpipe(proxyReq);
      proxyReq.destroy();
      req.resume(); // drain what is still coming so the client can read the answer
      if (!res.headersSent) {
        sendProblem(
          req,
          res,
          new AppError('REQUEST.TOO_LARGE', `The request body exceeds the limit of ${limitBytes} bytes`, [], {
            limit: limitBytes,
          }),
          { Connection: 'close' },
        );
      }
    };
    req.on('data', onData);
    req.pipe(proxyReq);
  };

  const route: UpstreamProxy['forward'] = (req, res, resolved, requestId, traceparent) => {
    const { rule } = resolved;
    const target = rule.target === 'gateway' ? undefined : targets.get(rule.target);
    if (!target) return false;
    // Set on the incoming headers (copied into the outgoing request).
    req.headers['x-request-id'] = requestId;
    req.headers.traceparent = traceparent;
    const limitBytes =
      rule.mediaBody === true ? (opts.mediaBodyLimitBytes ?? opts.bodyLimitBytes) : opts.bodyLimitBytes;
    forward(req, res, target, limitBytes);
    return true;
  };

  const handler: RequestHandler = (req, res, next) => {
    const resolved = routeOf(res);
    if (!resolved || !route(req, res, resolved, String(res.locals.requestId), String(res.locals.traceparent))) next();
  };

  return {
    handler,
    forward: route,
    close() {
      for (const t of targets.values()) t.agent.destroy();
    },
  };
}

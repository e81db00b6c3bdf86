import { Agent, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, type Logger, toProblem } from '@cc/kit';
import type { RequestHandler } from 'express';
import { createProxyMiddleware, type Plugin } from 'http-proxy-middleware';
import type { Upstream } from '../domain/route-table';
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

/** Per-request state the proxy events share (keyed by the incoming request). */
interface Flight {
  proxyReq?: ClientRequest;
  timedOut?: boolean;
  tooLarge?: boolean;
  startedAt: number;
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

function sendProblem(
  req: IncomingMessage,
  res: ServerResponse,
  err: AppError,
  extraHeaders: Record<string, string> = {},
) {
  const problem = toProblem(err, (req as { originalUrl?: string }).originalUrl ?? req.url);
  for (const [k, v] of Object.entries(extraHeaders)) res.setHeader(k, v);
  res.statusCode = problem.status;
  res.setHeader('Content-Type', 'application/problem+json');
  res.end(JSON.stringify(problem));
}

/**
 * Streams requests to the owning services with http-proxy-middleware: one keep-alive agent per service, the
 * original Authorization header (services verify again), `x-request-id` and a child `traceparent`, a timeout,
 * a streamed body-size count, and upstream failures answered as 502/503/504 problems by the gateway itself.
 */
export function createProxy(opts: ProxyOptions): { handler: RequestHandler; close(): void } {
  const flights = new WeakMap<IncomingMessage, Flight>();
  const agents: Agent[] = [];

  const plugin: Plugin = (proxyServer) => {
    proxyServer.on('start', (req: IncomingMessage, res: ServerResponse) => {
      const flight: Flight = { startedAt: Date.now() };
      flights.set(req, flight);
      const media = routeOf(res as unknown as { locals: Record<string, unknown> })?.rule.mediaBody === true;
      const limitBytes = media ? (opts.mediaBodyLimitBytes ?? opts.bodyLimitBytes) : opts.bodyLimitBytes;
      // Counted in the same tick the body is piped upstream, so no chunk passes uncounted.
      let seen = 0;
      const onData = (chunk: Buffer) => {
        seen += chunk.length;
        if (seen <= limitBytes || flight.tooLarge) return;
        flight.tooLarge = true;
        req.off('data', onData);
        req.unpipe();
        flight.proxyReq?.destroy();
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
    });
    proxyServer.on('proxyReq', (proxyReq: ClientRequest, req: IncomingMessage) => {
      const flight = flights.get(req);
      if (!flight) return;
      flight.proxyReq = proxyReq;
      if (flight.tooLarge) return void proxyReq.destroy();
      proxyReq.on('timeout', () => {
        flight.timedOut = true;
      });
    });
    proxyServer.on('proxyRes', (proxyRes: IncomingMessage, _req: IncomingMessage, res: ServerResponse) => {
      // A client that goes away mid-response must not leave the upstream stream open (SSE and long bodies).
      res.on('close', () => {
        if (!res.writableEnded) proxyRes.destroy();
      });
    });
    proxyServer.on('error', (err: NodeJS.ErrnoException, req: IncomingMessage, res: ServerResponse | Socket) => {
      const flight = flights.get(req);
      if (flight?.tooLarge) return;
      const upstream = (req as { upstream?: string }).upstream ?? 'upstream';
      const error = upstreamError(upstream, err.code, Boolean(flight?.timedOut));
      opts.logger.warn(
        { upstream, code: err.code, err: err.message, elapsedMs: flight ? Date.now() - flight.startedAt : undefined },
        'upstream request failed',
      );
      if (!('setHeader' in res)) return void res.destroy();
      if (res.headersSent) return void res.destroy();
      sendProblem(req, res, error);
    });
    proxyServer.on('econnreset', () => undefined);
  };

  const proxies = new Map<Upstream, RequestHandler>();
  for (const [name, target] of Object.entries(opts.upstreams) as [Upstream, string][]) {
    const agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });
    agents.push(agent);
    proxies.set(
      name,
      createProxyMiddleware({
        target,
        changeOrigin: true,
        xfwd: true,
        agent,
        proxyTimeout: opts.timeoutMs,
        ejectPlugins: true,
        plugins: [plugin],
      }) as unknown as RequestHandler,
    );
  }

  const handler: RequestHandler = (req, res, next) => {
    const route = routeOf(res);
    if (!route || route.rule.target === 'gateway') return next();
    const proxy = proxies.get(route.rule.target);
    if (!proxy) return next();
    (req as { upstream?: string }).upstream = route.rule.target;
    // Set on the incoming headers (copied into the outgoing request): headers of a streamed request cannot change later.
    req.headers['x-request-id'] = String(res.locals.requestId);
    req.headers.traceparent = String(res.locals.traceparent);
    return proxy(req, res, next);
  };

  return {
    handler,
    close() {
      for (const a of agents) a.destroy();
    },
  };
}

import { isUtf8 } from 'node:buffer';
import { randomBytes, randomUUID } from 'node:crypto';
import { maxHeaderSize as httpMaxHeaderSize, type Server, STATUS_CODES } from 'node:http';
import { context, SpanStatusCode } from '@opentelemetry/api';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import { AppError, toProblem } from '../errors';
import type { Readiness } from '../health';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { redactQuery } from '../redact';

export { redactQuery } from '../redact';

import { SpanKind, startSpan, traceparentOf } from '../tracing';

/** What {@link createHttpApp} needs from the composition root. */
export interface HttpAppOptions {
  logger: Logger;
  metrics: Metrics;
  readiness: Readiness;
  /** Largest accepted JSON body, e.g. `256kb`. */
  bodyLimit?: string;
  /**
   * Addresses of reverse proxies whose `X-Forwarded-For` is believed (Express `trust proxy`: IPs, CIDRs or
   * `loopback`/`linklocal`/`uniquelocal`, comma-separated). Default none: `req.ip` is the peer's address, so a
   * client cannot choose its own by sending the header.
   */
  trustProxy?: string;
  /** Mounts the service's own routes between the common middleware and the 404/error handlers. */
  routes?: (app: Express) => void;
}

/** App setting holding a `(req) => boolean`; see {@link leaveBodiesUnparsed}. */
const rawBodySetting = 'cc:leave-bodies-unparsed';

/**
 * Lets a service's `routes` name requests whose bodies the kit neither type-checks (415) nor parses as JSON:
 * a proxy streams them on untouched, a form endpoint parses its own. Read per request, so it can be set from
 * `routes` although the body middleware is installed before them.
 */
export function leaveBodiesUnparsed(app: Express, predicate: (req: Request) => boolean): void {
  app.set(rawBodySetting, predicate);
}

const safeId = /^[A-Za-z0-9._:-]{1,128}$/;
const traceparentRe = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The request's id: the caller's `x-request-id` when well-formed, else a new UUID. */
export function acceptedRequestId(incoming: string | undefined): string {
  return incoming && safeId.test(incoming) ? incoming : randomUUID();
}

/** The caller's W3C `traceparent` when well-formed (the parent of the request's span), else null. */
export function callerTraceparent(header: string | undefined): string | null {
  return header && traceparentRe.test(header) ? header : null;
}

/** Express app with request ids, trace context, access log, JSON parsing, health, metrics and problem+json errors. */
export function createHttpApp(opts: HttpAppOptions): Express {
  const { logger, metrics, readiness } = opts;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple'); // flat strings only: no nested objects, so no `$`-operator injection
  app.set('trust proxy', parseTrustProxy(opts.trustProxy));

  app.use(requestContext(String(logger.bindings().service ?? 'service')));
  app.use(
    pinoHttp({
      logger,
      genReqId: (_req, res) => res.getHeader('x-request-id') as string,
      customLogLevel: (_req, res, err) =>
        err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics' },
      serializers: {
        req: (req) => ({ id: req.id, method: req.method, url: redactQuery(req.url) }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use((req, res, next) => {
    const end = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const result = await readiness.evaluate();
    res.status(result.ok ? 200 : 503).json({ status: result.ok ? 'ready' : 'not ready', checks: result.checks });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  const parseJson = express.json({
    limit: opts.bodyLimit ?? '256kb',
    type: ['application/json', 'application/*+json'],
    strict: true,
    // The decoder would turn malformed UTF-8 into U+FFFD and the body would be stored altered: refuse it instead.
    verify: (_req, _res, buf) => {
      if (!isUtf8(buf)) throw Object.assign(new Error('invalid UTF-8'), { type: 'entity.encoding.invalid' });
    },
  });
  app.use((req, res, next) => {
    const unparsed = app.get(rawBodySetting) as ((req: Request) => boolean) | undefined;
    if (unparsed?.(req)) return next();
    requireJsonBody(req, res, (err?: unknown) => (err ? next(err) : parseJson(req, res, next)));
  });

  opts.routes?.(app);

  app.use((req, _res, next) => {
    next(new AppError('REQUEST.NOT_FOUND', `No resource at ${req.method} ${req.path}`));
  });
  app.use(problemHandler(logger));
  return app;
}

/** Probes and scrapes: no span (they would drown the traces). */
const untraced = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Sets `x-request-id` (kept from the caller when well-formed) and runs the request in a server span continuing
 * the caller's W3C `traceparent`; `res.locals.traceparent` names that span for downstream calls and events.
 */
const requestContext =
  (service: string): RequestHandler =>
  (req, res, next) => {
    const requestId = acceptedRequestId(req.header('x-request-id'));
    res.setHeader('x-request-id', requestId);
    res.locals.requestId = requestId;
    const callerTrace = req.header('traceparent') ?? '';
    if (untraced.has(req.path)) {
      const traceId = traceparentRe.exec(callerTrace)?.[1] ?? randomBytes(16).toString('hex');
      res.locals.traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
      return next();
    }
    const { span, ctx } = startSpan(service, `${req.method} ${req.path}`, {
      kind: SpanKind.SERVER,
      parent: callerTraceparent(callerTrace),
      attributes: { 'http.request.method': req.method, 'url.path': req.path, 'cc.request_id': requestId },
    });
    res.locals.traceparent = traceparentOf(span);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(ctx, next);
  };

/** A body on POST/PUT/PATCH must be declared JSON; anything else is a 415 before any parsing. */
const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.header('content-length') ?? 0) > 0 || req.header('transfer-encoding') !== undefined;
  if (hasBody && ['POST', 'PUT', 'PATCH'].includes(req.method) && !req.is(['application/json', 'application/*+json'])) {
    return next(new AppError('REQUEST.UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json'));
  }
  next();
};

/** Maps body-parser failures to coded errors and answers every error as RFC 9457 problem+json. */
export function problemHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = fromBodyParser(err) ?? err;
    const problem = toProblem(error, req.originalUrl);
    if (problem.status >= 500) (req.log ?? logger).error({ err }, 'request failed');
    if (res.headersSent) return res.end();
    if (problem.status === 429 && error instanceof AppError && typeof error.extra.retryAfter === 'number') {
      res.setHeader('Retry-After', String(error.extra.retryAfter));
    }
    if (problem.status === 503) res.setHeader('Retry-After', '5');
    res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
  };
}

function fromBodyParser(err: unknown): AppError | undefined {
  if (err instanceof AppError) return undefined; // carries its own status: not a parser's or router's error
  const e = err as { type?: string; status?: number; limit?: number };
  // The router's own 4xx (e.g. a path parameter that is not valid percent-encoded UTF-8).
  if (err instanceof URIError || (e?.status === 400 && !e.type)) {
    return new AppError('REQUEST.VALIDATION', 'The request path is not valid percent-encoded UTF-8');
  }
  switch (e?.type) {
    case 'entity.encoding.invalid':
      return new AppError('REQUEST.MALFORMED_JSON', 'The request body is not valid UTF-8');
    case 'entity.parse.failed':
      return new AppError('REQUEST.MALFORMED_JSON', 'The request body is not valid JSON');
    case 'entity.too.large':
      return new AppError('REQUEST.TOO_LARGE', `The request body exceeds the limit of ${e.limit} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('REQUEST.UNSUPPORTED_MEDIA_TYPE', 'Only UTF-8 JSON bodies are accepted');
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('REQUEST.VALIDATION', 'The request body was incomplete');
    default:
      return undefined;
  }
}

/** The `trust proxy` setting from a comma-separated list; empty or absent trusts no forwarding header. */
export function parseTrustProxy(list: string | undefined): string[] | false {
  const entries = (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return entries.length ? entries : false;
}

/**
 * Answers what Node's HTTP parser refuses before Express sees it (a request head over `maxHeaderSize`, malformed
 * HTTP, a head that never completes) with a problem+json body instead of Node's empty one, then closes the
 * connection: 431 for an oversized head, 408 for a timeout, else 400.
 */
export function answerClientErrors(server: Server, maxHeaderSize = maxHeaderSizeOf(server)): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const error =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError(
            'REQUEST.HEADERS_TOO_LARGE',
            `The request line and headers exceed ${maxHeaderSize} bytes (a token, the URL or the query string is too long)`,
          )
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new AppError('REQUEST.TIMEOUT', 'The request was not received in time')
          : new AppError('REQUEST.VALIDATION', 'The request is not valid HTTP/1.1');
    const problem = toProblem(error);
    const body = JSON.stringify(problem);
    socket.end(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Error'}\r\n` +
        `Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/** The server's `maxHeaderSize` option, else Node's (`--max-http-header-size`, 16 KiB by default). */
function maxHeaderSizeOf(server: Server): number {
  return (server as Server & { maxHeaderSize?: number }).maxHeaderSize ?? httpMaxHeaderSize;
}

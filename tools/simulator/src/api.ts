/**
 * The simulator's one door to the suite: the gateway's public API with client-credentials tokens (one scope
 * each, refreshed before expiry), problem+json errors as ApiError, 429 honoured with Retry-After. Every answer
 * is reported to `observe` so the live view can count requests and errors by status. Tokens, problem parsing and
 * paging are the SDK's (@cc/client); requests go out here so every answer, tolerated ones too (a 404 of an offer a
 * caller hung up on), can be counted by status.
 */
import {
  collectPages,
  errorFromResponse,
  type Page,
  ProblemError,
  ApiError as SdkError,
  type Scope as SdkScope,
  TokenSource,
} from '@cc/client';

/** The token scopes of the suite. */
export type Scope = SdkScope;

/** A problem+json answer (or a transport failure, status 0) the caller did not expect. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly what: string,
    readonly body: unknown,
  ) {
    super(`${what}: HTTP ${status}${code ? ` ${code}` : ''}${detailOf(body)}`);
  }
}

function detailOf(body: unknown): string {
  if (body && typeof body === 'object' && 'detail' in body) return `: ${String((body as { detail: unknown }).detail)}`;
  return typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : '';
}

/** Client credentials of the gateway's token endpoint. */
export interface Credentials {
  clientId: string;
  clientSecret: string;
}

/** One request. `expect` lists the statuses that are success for the caller (default 2xx). */
export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  json?: unknown;
  body?: Uint8Array;
  contentType?: string;
  expect?: number[];
  /** A label for counting (e.g. `accept`); default method + first path segments. */
  op?: string;
  /** Give up waiting for the answer after this long (default 30 s); counted as status 0. */
  timeoutMs?: number;
}

/** What one answer looked like, for the statistics of the run. */
export interface Observation {
  op: string;
  status: number;
  ms: number;
  expected: boolean;
}

/** The gateway client of the simulator. */
export class SuiteApi {
  private admin!: TokenSource;
  private app!: TokenSource;

  constructor(
    readonly baseUrl: string,
    credentials: Credentials,
    private readonly observe: (o: Observation) => void = () => undefined,
  ) {
    this.reset(credentials);
  }

  private source(c: Credentials): TokenSource {
    return new TokenSource({ tokenUrl: `${this.baseUrl}/Auth/connect/token`, ...c });
  }

  /** Goes back to one client for every scope; cached tokens are forgotten. */
  reset(credentials: Credentials): void {
    this.admin = this.source(credentials);
    this.app = this.admin;
  }

  /** From now on, `admin` tokens come from `admin` and every other scope's from `app` (an account of the run's own). */
  use(admin: Credentials, app: Credentials): void {
    this.admin = this.source(admin);
    this.app = this.source(app);
  }

  /** A bearer token of one scope (the SDK's TokenSource: cached, refreshed before expiry, one request in flight). */
  async token(scope: Scope): Promise<string> {
    try {
      return await (scope === 'admin' ? this.admin : this.app).token(scope);
    } catch (err) {
      if (err instanceof SdkError) throw new ApiError(err.status, '', `token (${scope})`, err.body);
      throw err;
    }
  }

  /** Sends a request with a token of `scope`; returns status and parsed body, or throws ApiError. */
  async call<T = unknown>(scope: Scope, req: Call): Promise<{ status: number; body: T }> {
    const op = req.op ?? `${req.method} ${req.path.split('?')[0]?.split('/').slice(0, 3).join('/')}`;
    for (let attempt = 0; ; attempt++) {
      const started = Date.now();
      let status = 0;
      let body: unknown = null;
      let problem: SdkError | undefined;
      try {
        const headers: Record<string, string> = {
          authorization: `Bearer ${await this.token(scope)}`,
          accept: 'application/json',
        };
        let payload: string | Uint8Array<ArrayBuffer> | undefined;
        if (req.json !== undefined) {
          headers['content-type'] = 'application/json';
          payload = JSON.stringify(req.json);
        } else if (req.body) {
          headers['content-type'] = req.contentType ?? 'application/octet-stream';
          payload = new Uint8Array(req.body);
        }
        const res = await fetch(`${this.baseUrl}${req.path}`, {
          method: req.method,
          headers,
          ...(payload !== undefined ? { body: payload } : {}),
          signal: AbortSignal.timeout(req.timeoutMs ?? 30_000),
        });
        status = res.status;
        const wanted = req.expect ? req.expect.includes(status) : res.ok;
        if (wanted) {
          const text = await res.text();
          body = text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
        } else {
          // The SDK's reading of a non-2xx answer: problem+json as a typed ProblemError with its code.
          problem = await errorFromResponse(res);
          body = problem.body;
        }
        // Throttled: wait as told (bounded) and try again; counted, but not as an error of the suite.
        if (status === 429 && attempt < 5) {
          this.observe({ op, status, ms: Date.now() - started, expected: true });
          await new Promise((r) => setTimeout(r, Math.min(10, problem?.retryAfter ?? 1) * 1000));
          continue;
        }
        if (status === 401 && attempt === 0) {
          // Rejected early (e.g. the gateway rotated its keys): one fresh token, once.
          (scope === 'admin' ? this.admin : this.app).invalidate(scope);
          continue;
        }
      } catch (err) {
        if (err instanceof ApiError) throw err;
        body = (err as Error).message;
      }
      const expected = req.expect ? req.expect.includes(status) : status >= 200 && status < 300;
      this.observe({ op, status, ms: Date.now() - started, expected });
      if (!expected) {
        throw new ApiError(
          status,
          problem instanceof ProblemError ? problem.code : '',
          `${req.method} ${req.path}`,
          body,
        );
      }
      return { status, body: body as T };
    }
  }

  /** Every item of an admin or statistics listing, following `meta.pageCount` (the SDK's paging helper). */
  async all<T>(scope: Scope, path: string, limit = 1000): Promise<T[]> {
    const sep = path.includes('?') ? '&' : '?';
    const { items } = await collectPages<T>(
      async (page) =>
        (
          await this.call<{ items: T[]; meta: Page<T>['meta'] }>(scope, {
            method: 'GET',
            path: `${path}${sep}page=${page}&limit=${limit}`,
            op: `GET ${path.split('?')[0]}`,
          })
        ).body as Page<T>,
    );
    return items;
  }
}

/**
 * The simulator's one door to the suite: the gateway's public API with client-credentials tokens (one scope
 * each, refreshed before expiry), problem+json errors as ApiError, 429 honoured with Retry-After. Every answer
 * is reported to `observe` so the live view can count requests and errors by status.
 */

/** The token scopes of the suite. */
export type Scope =
  | 'admin'
  | 'interactions:write'
  | 'agent'
  | 'stats'
  | 'interaction-content:read'
  | 'interaction-content:write';

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
  private readonly tokens = new Map<Scope, { token: string; until: number; pending?: Promise<string> }>();

  private admin: Credentials;
  private app: Credentials;

  constructor(
    readonly baseUrl: string,
    credentials: Credentials,
    private readonly observe: (o: Observation) => void = () => undefined,
  ) {
    this.admin = credentials;
    this.app = credentials;
  }

  /** Forgets the credentials' tokens and goes back to the given client for every scope. */
  reset(credentials?: Credentials): void {
    if (credentials) {
      this.admin = credentials;
      this.app = credentials;
    }
    this.tokens.clear();
  }

  /** From now on, `admin` tokens come from `admin` and every other scope's from `app` (an account of the run's own). */
  use(admin: Credentials, app: Credentials): void {
    this.admin = admin;
    this.app = app;
    this.tokens.clear();
  }

  /** A bearer token of one scope, fetched once and refreshed a minute before it expires. */
  async token(scope: Scope): Promise<string> {
    const cached = this.tokens.get(scope);
    if (cached && cached.until > Date.now()) return cached.token;
    if (cached?.pending) return cached.pending;
    const pending = (async () => {
      const creds = scope === 'admin' ? this.admin : this.app;
      const basic = Buffer.from(`${creds.clientId}:${creds.clientSecret}`).toString('base64');
      const res = await fetch(`${this.baseUrl}/Auth/connect/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
      });
      const body = (await res.json().catch(() => ({}))) as {
        access_token?: string;
        expires_in?: number;
        code?: string;
      };
      if (res.status !== 200 || !body.access_token) {
        this.tokens.delete(scope);
        throw new ApiError(res.status, body.code ?? '', `token (${scope})`, body);
      }
      this.tokens.set(scope, {
        token: body.access_token,
        until: Date.now() + Math.max(30, (body.expires_in ?? 300) - 60) * 1000,
      });
      return body.access_token;
    })();
    this.tokens.set(scope, { token: '', until: 0, pending });
    try {
      return await pending;
    } catch (err) {
      this.tokens.delete(scope);
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
          signal: AbortSignal.timeout(30_000),
        });
        status = res.status;
        const text = await res.text();
        body = text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
        // Throttled: wait as told (bounded) and try again; counted, but not as an error of the suite.
        if (status === 429 && attempt < 5) {
          this.observe({ op, status, ms: Date.now() - started, expected: true });
          const wait = Math.min(10, Number(res.headers.get('retry-after') ?? '1') || 1);
          await new Promise((r) => setTimeout(r, wait * 1000));
          continue;
        }
        if (status === 401 && attempt === 0) {
          this.tokens.delete(scope); // expired early (e.g. the gateway rotated its keys): one fresh token
          continue;
        }
      } catch (err) {
        if (err instanceof ApiError) throw err;
        body = (err as Error).message;
      }
      const expected = req.expect ? req.expect.includes(status) : status >= 200 && status < 300;
      this.observe({ op, status, ms: Date.now() - started, expected });
      if (!expected) {
        const code = body && typeof body === 'object' && 'code' in body ? String((body as { code: unknown }).code) : '';
        throw new ApiError(status, code, `${req.method} ${req.path}`, body);
      }
      return { status, body: body as T };
    }
  }

  /** Every item of an admin or statistics listing, following `meta.pageCount`. */
  async all<T>(scope: Scope, path: string, limit = 1000): Promise<T[]> {
    const items: T[] = [];
    for (let page = 1; ; page++) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await this.call<{ items: T[]; meta?: { pageCount?: number } }>(scope, {
        method: 'GET',
        path: `${path}${sep}page=${page}&limit=${limit}`,
        op: `GET ${path.split('?')[0]}`,
      });
      items.push(...res.body.items);
      if (!res.body.meta?.pageCount || page >= res.body.meta.pageCount || res.body.items.length === 0) return items;
    }
  }
}

/** A problem+json answer (or a transport failure) as an exception the pages can show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The scopes the console asks tokens for; the gateway issues one scope per token. */
export type Scope = 'admin' | 'stats' | 'interaction-content:read';

interface Token {
  value: string;
  /** Refresh after this time (ms): a minute before the token expires. */
  refreshAt: number;
}

/**
 * The console's API client. The client id and secret live only in this object (memory): never in
 * localStorage, sessionStorage or a cookie; a reload signs out. Tokens are fetched per scope on first use and
 * again a minute before they expire.
 */
export class ConsoleApi {
  private readonly tokens = new Map<Scope, Promise<Token>>();

  constructor(
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly base = '',
  ) {}

  /** Checks the credentials by getting an admin token (the Live, Providers and Workforce pages need it). */
  async signIn(): Promise<void> {
    await this.token('admin');
  }

  /** The client id signed in (shown in the header). */
  get who(): string {
    return this.clientId;
  }

  /** A valid token of `scope`, from memory or the token endpoint. */
  async token(scope: Scope): Promise<string> {
    const cached = this.tokens.get(scope);
    if (cached) {
      const t = await cached.catch(() => undefined);
      if (t && t.refreshAt > Date.now()) return t.value;
    }
    const fresh = this.fetchToken(scope);
    this.tokens.set(scope, fresh);
    fresh.catch(() => this.tokens.delete(scope));
    return (await fresh).value;
  }

  private async fetchToken(scope: Scope): Promise<Token> {
    const res = await fetch(`${this.base}/Auth/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: this.clientId,
        client_secret: this.clientSecret,
        scope,
      }),
    });
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) {
      const why = String(body.error_description ?? body.error ?? res.statusText);
      throw new ApiError(res.status, String(body.error ?? ''), `Sign-in failed for scope ${scope}: ${why}`);
    }
    const expiresIn = Number(body.expires_in ?? 3600);
    return { value: String(body.access_token), refreshAt: Date.now() + Math.max(10, expiresIn - 60) * 1000 };
  }

  /** A JSON request with the token of `scope`; a non-2xx answer throws ApiError with the problem's detail. */
  async json<T>(scope: Scope, method: string, path: string, body?: unknown, accept = 'application/json'): Promise<T> {
    const res = await this.raw(scope, method, path, body, accept);
    const text = await res.text();
    const parsed = text ? (JSON.parse(text) as T) : (undefined as T);
    return parsed;
  }

  /** GET of a JSON resource with query parameters (undefined ones left out). */
  get<T>(scope: Scope, path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
    const qs = q.toString();
    return this.json<T>(scope, 'GET', qs ? `${path}?${qs}` : path);
  }

  /** Every item of a paged list (`meta.pageCount`), up to `maxPages` pages. */
  async all<T>(
    scope: Scope,
    path: string,
    query: Record<string, string | number | undefined> = {},
    maxPages = 10,
  ): Promise<T[]> {
    return (await this.pages<T>(scope, path, query, maxPages)).items;
  }

  /** Every item of a paged list and the first page's `upTo` (the watermark the window was complete to). */
  async pages<T>(
    scope: Scope,
    path: string,
    query: Record<string, string | number | undefined> = {},
    maxPages = 10,
  ): Promise<{ items: T[]; upTo?: string }> {
    const items: T[] = [];
    let upTo: string | undefined;
    for (let page = 1; page <= maxPages; page++) {
      const r = await this.get<{ items: T[]; meta?: { pageCount?: number }; upTo?: string }>(scope, path, {
        ...query,
        page,
      });
      items.push(...r.items);
      upTo ??= r.upTo;
      if (!r.meta?.pageCount || page >= r.meta.pageCount) break;
    }
    return upTo ? { items, upTo } : { items };
  }

  /** A request with the token of `scope`; throws ApiError on a non-2xx answer. */
  async raw(
    scope: Scope,
    method: string,
    path: string,
    body?: unknown,
    accept = 'application/json',
    signal?: AbortSignal,
  ): Promise<Response> {
    const token = await this.token(scope);
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
    });
    if (!res.ok) {
      const problem = (await res.json().catch(() => ({}))) as { detail?: string; title?: string; code?: string };
      throw new ApiError(
        res.status,
        problem.code,
        problem.detail ?? problem.title ?? `${res.status} ${res.statusText}`,
      );
    }
    return res;
  }
}

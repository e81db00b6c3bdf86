import { errorFromResponse } from './errors';

/** Options of a {@link TokenSource}. */
export interface TokenSourceOptions {
  /** Absolute URL of the token endpoint (`<baseUrl>/Auth/connect/token`). */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Refresh this many seconds before expiry (default 60; at most half the token's lifetime). */
  refreshBeforeSeconds?: number;
  fetch?: typeof fetch;
  /** Clock in ms (tests). */
  now?: () => number;
}

interface Cached {
  token: string;
  /** When to fetch a new one (ms): before the token expires. */
  refreshAt: number;
  expiresAt: number;
}

/**
 * Client-credentials tokens, one per scope (the suite issues exactly one scope per token): cached, refreshed before
 * expiry, with at most one token request in flight per scope however many calls wait for it.
 */
export class TokenSource {
  private readonly cache = new Map<string, Cached>();
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  /** Token requests sent so far (observability and tests). */
  requests = 0;

  constructor(private readonly options: TokenSourceOptions) {
    this.fetchFn = options.fetch ?? globalThis.fetch;
    this.now = options.now ?? Date.now;
  }

  /** A valid bearer token for `scope`: the cached one until its refresh time, else a fresh one. */
  async token(scope: string): Promise<string> {
    const cached = this.cache.get(scope);
    if (cached && this.now() < cached.refreshAt) return cached.token;
    const pending = this.inFlight.get(scope);
    if (pending) return pending;
    const request = this.fetchToken(scope).finally(() => this.inFlight.delete(scope));
    this.inFlight.set(scope, request);
    return request;
  }

  /** Forgets the cached token of `scope` (e.g. after the API answered 401 to it: a rotated key, a revoked client). */
  invalidate(scope: string, token?: string): void {
    const cached = this.cache.get(scope);
    if (cached && (token === undefined || cached.token === token)) this.cache.delete(scope);
  }

  private async fetchToken(scope: string): Promise<string> {
    this.requests += 1;
    const basic = Buffer.from(
      `${encodeURIComponent(this.options.clientId)}:${encodeURIComponent(this.options.clientSecret)}`,
    ).toString('base64');
    const started = this.now();
    const response = await this.fetchFn(this.options.tokenUrl, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
    });
    if (!response.ok) throw await errorFromResponse(response);
    const body = (await response.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string' || typeof body.expires_in !== 'number' || body.expires_in <= 0) {
      throw new Error('token endpoint answered 200 without access_token and a positive expires_in');
    }
    const lifetime = body.expires_in * 1000;
    const margin = Math.min((this.options.refreshBeforeSeconds ?? 60) * 1000, lifetime / 2);
    // Counted from when the request was sent, so a slow answer cannot make a token look younger than it is.
    this.cache.set(scope, {
      token: body.access_token,
      refreshAt: started + lifetime - margin,
      expiresAt: started + lifetime,
    });
    return body.access_token;
  }
}

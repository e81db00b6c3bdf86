import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import { errorFromResponse, ProblemError, ScopeError } from './errors';
import { type ApiPaths, apiNames, operationScopes } from './generated/apis';
import { TokenSource } from './tokens';

/** The scopes of the suite's tokens (one per token). */
export type Scope =
  | 'interactions:write'
  | 'stats'
  | 'interaction-content:read'
  | 'interaction-content:write'
  | 'admin'
  | 'agent';

/** Options of {@link createClient}. */
export interface CreateClientOptions {
  /** The gateway's base URL, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /**
   * The scopes this API client was granted; default: all. An operation needing none of them fails with a
   * {@link ScopeError} before anything is sent.
   */
  scopes?: readonly Scope[];
  /** Refresh a token this many seconds before it expires (default 60). */
  refreshBeforeSeconds?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
  /** Headers sent with every request (e.g. a `traceparent`); never the Authorization header. */
  headers?: Record<string, string>;
}

/** JSON responses: `application/json` and the vendor media types (`application/json; version=2` of v0). */
type Json = `application/json${string}`;

/** One typed openapi-fetch client per API document. */
export type ApiClients = { [K in keyof ApiPaths]: Client<ApiPaths[K], Json> };

/** The suite's typed client: one client per API, and the token source they share. */
export interface CcClient extends ApiClients {
  /** Tokens per scope, for a call the typed clients do not cover (e.g. the event stream). */
  tokens: TokenSource;
}

/**
 * Creates the suite's typed client. Each operation gets a token of the scope its OpenAPI document requires
 * (fetched by client credentials, cached, refreshed before expiry); every non-2xx answer throws a typed
 * {@link ProblemError} / `OAuthError` / `ApiError`, so `data` of a call that returned is the success body.
 * `v0Statistics` sends no token of its own: pass the v0 bearer in `headers`.
 */
export function createClient(options: CreateClientOptions): CcClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const tokens = new TokenSource({
    tokenUrl: `${baseUrl}/Auth/connect/token`,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    refreshBeforeSeconds: options.refreshBeforeSeconds,
    fetch: options.fetch,
  });
  const granted = options.scopes ? new Set<string>(options.scopes) : undefined;
  const clients = Object.fromEntries(
    apiNames.map((api) => {
      const client = createFetchClient<ApiPaths[typeof api], Json>({
        baseUrl,
        fetch: options.fetch,
        headers: options.headers,
      });
      client.use(authAndErrors(operationScopes[api], tokens, granted));
      return [api, client];
    }),
  ) as unknown as ApiClients;
  return { ...clients, tokens };
}

// Remembers which scope's token a request carried, so a 401 can drop exactly that token.
const sentWith = new WeakMap<Request, { scope: string; token: string }>();

function authAndErrors(
  scopesOf: Record<string, readonly string[]>,
  tokens: TokenSource,
  granted: Set<string> | undefined,
): Middleware {
  return {
    async onRequest({ request, schemaPath }) {
      const operation = `${request.method.toUpperCase()} ${schemaPath}`;
      const accepted = scopesOf[operation];
      if (!accepted || request.headers.has('authorization')) return request;
      const scope = granted ? accepted.find((s) => granted.has(s)) : accepted[0];
      if (scope === undefined) throw new ScopeError(operation, accepted);
      const token = await tokens.token(scope);
      request.headers.set('authorization', `Bearer ${token}`);
      sentWith.set(request, { scope, token });
      return request;
    },
    async onResponse({ request, response }) {
      if (response.ok) return response;
      const error = await errorFromResponse(response);
      const sent = sentWith.get(request);
      // A rejected token (rotated signing key, revoked client) is not reused: the next call fetches a new one.
      if (sent && error instanceof ProblemError && error.status === 401) tokens.invalidate(sent.scope, sent.token);
      throw error;
    },
  };
}

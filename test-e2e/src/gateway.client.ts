import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { type CcClient, createClient, ok, TokenSource } from '@cc/client';
import { e2eServices, gatewayUrl } from './suite';

/** An answer of the gateway: status, headers, the raw text and the parsed JSON body (when it is JSON). */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  text: string;
  body: T;
}

/** One request to the gateway. `path` is sent byte for byte (no URL normalisation), so bad paths reach it. */
export interface ApiRequest {
  method: string;
  path: string;
  token?: string;
  /** Serialised with JSON.stringify (lone surrogates become `\ud800` escapes, as a JSON encoder writes them). */
  json?: unknown;
  /** A raw body (text or bytes); `contentType` names it. */
  body?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  /** Send the body without Content-Length, in 64 KB chunks (Transfer-Encoding: chunked). */
  chunked?: boolean;
}

// No keep-alive: a socket the gateway closed while idle must never be reused by a test.
const agent = new Agent({ keepAlive: false, maxSockets: 64 });

/**
 * Sends one request to the gateway over plain node:http (fetch would normalise the path and re-encode
 * the body) and reads the whole answer.
 */
export function call<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>> {
  const payload =
    req.json !== undefined ? Buffer.from(JSON.stringify(req.json)) : req.body === undefined ? undefined : req.body;
  const headers: Record<string, string | number> = { accept: 'application/json', ...req.headers };
  if (req.token) headers.authorization = `Bearer ${req.token}`;
  if (payload !== undefined) {
    headers['content-type'] = req.contentType ?? (req.json !== undefined ? 'application/json' : 'text/plain');
    if (!req.chunked) headers['content-length'] = Buffer.byteLength(payload);
  }
  return new Promise((resolve, reject) => {
    // A server may answer (413) and close while a large body is still being written: the answer counts.
    let answered = false;
    const r = httpRequest(
      { host: '127.0.0.1', port: e2eServices.gateway, method: req.method, path: req.path, headers, agent },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const contentType = String(res.headers['content-type'] ?? '');
          let body: unknown = text;
          if (/json/.test(contentType) && text) {
            try {
              body = JSON.parse(text);
            } catch {
              body = text;
            }
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, contentType, text, body: body as T });
        });
      },
    );
    r.on('error', (err) => {
      if (!answered) reject(err);
    });
    r.setTimeout(60_000, () => r.destroy(new Error(`${req.method} ${req.path}: no answer within 60 s`)));
    if (payload !== undefined && req.chunked) {
      const bytes = Buffer.from(payload);
      for (let i = 0; i < bytes.length && !answered; i += 65536) r.write(bytes.subarray(i, i + 65536));
    } else if (payload !== undefined) r.write(payload);
    r.end();
  });
}

/** Throws with the request and the whole answer when the status is not the expected one. */
export function expectStatus<T>(res: ApiResponse<T>, expected: number | number[], what: string): ApiResponse<T> {
  const ok = Array.isArray(expected) ? expected.includes(res.status) : res.status === expected;
  if (!ok) {
    throw new Error(`${what}: expected HTTP ${String(expected)}, got ${res.status} ${res.contentType}: ${res.text}`);
  }
  return res;
}

/** Client credentials of the gateway's token endpoint. */
export interface Credentials {
  clientId: string;
  clientSecret: string;
}

/** The demo platform-admin client seeded by the gateway (services/gateway/README.md). */
export const demoClient: Credentials = {
  clientId: process.env.CC_DEMO_CLIENT_ID ?? 'demo-client',
  clientSecret: process.env.CC_DEMO_CLIENT_SECRET ?? 'demo-secret-change-me',
};

// One @cc/client token source per client: tokens per scope, refreshed before expiry, one request in flight.
const tokenSources = new Map<string, TokenSource>();

/** A bearer token for one scope (POST /Auth/connect/token, HTTP Basic), cached until shortly before it expires. */
export async function tokenFor(creds: Credentials, scope: string): Promise<string> {
  const key = `${creds.clientId}\n${creds.clientSecret}`;
  let source = tokenSources.get(key);
  if (!source) {
    source = new TokenSource({
      tokenUrl: `${gatewayUrl}/Auth/connect/token`,
      clientId: creds.clientId,
      clientSecret: creds.clientSecret,
    });
    tokenSources.set(key, source);
  }
  return source.token(scope);
}

/** The typed SDK (@cc/client) for a client of the gateway under test. */
export function sdkFor(creds: Credentials): CcClient {
  return createClient({ baseUrl: gatewayUrl, clientId: creds.clientId, clientSecret: creds.clientSecret });
}

/** A short random suffix for names (lower-case letters and digits). */
export function uniqueSuffix(bytes = 4): string {
  return randomBytes(bytes).toString('hex');
}

/** The scopes of the suite's tokens. */
export type Scope =
  | 'admin'
  | 'interactions:write'
  | 'agent'
  | 'stats'
  | 'interaction-content:read'
  | 'interaction-content:write';

/** An account of its own for one scenario: its admin client and an application client (Invoke, Register, agents). */
export interface Tenant {
  accountId: string;
  admin: Credentials;
  app: Credentials;
  /** A token of the admin client (`admin`) or of the application client (`interactions:write`, `agent`, `stats`). */
  token(scope: Scope): Promise<string>;
  /** A request with the token of `scope`. */
  api<T = unknown>(scope: Scope, req: ApiRequest): Promise<ApiResponse<T>>;
  /** The typed SDK as the admin client (`admin`) or the application client (its scopes). */
  sdk: { admin: CcClient; app: CcClient };
}

/**
 * Creates a fresh account through the operator API (the demo client is a platform admin), then an
 * application client in it, so each scenario's agents, routes and providers are isolated from the others.
 */
export async function createTenant(
  label: string,
  appScopes: Scope[] = ['interactions:write', 'agent', 'stats'],
): Promise<Tenant> {
  const operator = sdkFor(demoClient);
  const accountId = `e2e-${label}-${uniqueSuffix()}`.slice(0, 63);
  const created = await ok(operator.admin.POST('/admin/accounts', { body: { accountId, name: `E2E ${label}` } }));
  const admin: Credentials = { clientId: created.adminClient.clientId, clientSecret: created.adminClient.clientSecret };
  const adminSdk = sdkFor(admin);
  const app = await ok(adminSdk.admin.POST('/admin/clients', { body: { name: 'E2E application', scopes: appScopes } }));
  const token: Tenant['token'] = (scope) => tokenFor(scope === 'admin' ? admin : app, scope);
  return {
    accountId,
    admin,
    app: { clientId: app.clientId, clientSecret: app.clientSecret },
    token,
    api: async (scope, req) => call({ ...req, token: await token(scope) }),
    sdk: { admin: adminSdk, app: sdkFor({ clientId: app.clientId, clientSecret: app.clientSecret }) },
  };
}

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTokenVerifier, loadConfig, type Principal } from '@cc/kit';
import { CapturedLogs, freshName, testInfra } from '@cc/testing';
import { type Config, configSpec } from '../../src/config';
import { type GatewayService, startService } from '../../src/service';

/** A started gateway with its captured logs and its settings. */
export interface TestGateway {
  svc: GatewayService;
  url: string;
  config: Config;
  logs: CapturedLogs;
  stop(): Promise<void>;
}

/** A fresh `CC_ENCRYPTION_KEYS` value. */
export function testEncryptionKeys(): string {
  return `t1:${randomBytes(32).toString('base64')}`;
}

/** Settings for a gateway under test: real infra, a fresh database, any free port, the demo seed on. */
export async function gatewayConfig(env: Record<string, string> = {}): Promise<Config> {
  const infra = await testInfra();
  const config = loadConfig(configSpec, {
    KAFKA_BROKERS: infra.kafkaBrokers.join(','),
    MONGO_URL: infra.mongoUrl,
    MONGO_DB: freshName('gw_test'),
    KAFKA_TOPIC_PARTITIONS: '1',
    CC_ENCRYPTION_KEYS: testEncryptionKeys(),
    CC_DEMO_SEED: 'true',
    TOKEN_ATTEMPTS_PER_MINUTE: '1000',
    SHUTDOWN_DEADLINE_MS: '10000',
    ...env,
  });
  // envalid's port() refuses 0; the runtime listens on any free port when given 0.
  return { ...config, PORT: env.PORT ? config.PORT : 0 };
}

/** Starts a gateway in-process with its logs captured. */
export async function startGateway(env: Record<string, string> = {}): Promise<TestGateway> {
  const config = await gatewayConfig(env);
  const logs = new CapturedLogs();
  const svc = await startService(config, { logDestination: logs, exitOnShutdown: false });
  return { svc, url: svc.url(), config, logs, stop: () => svc.stop() };
}

/** Form-encodes a body. */
export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** Gets an access token for a client from the gateway's token endpoint (fails the test on anything but 200). */
export async function getToken(url: string, clientId: string, secret: string, scope: string): Promise<string> {
  const res = await fetch(`${url}/Auth/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret, scope }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) throw new Error(`token: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** What the echo upstream saw of one request. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  bodyBytes: number;
  body: string;
  principal?: Principal;
  authError?: string;
}

/**
 * A real HTTP service standing in for a downstream: it verifies the bearer token itself against the gateway's
 * JWKS (as every service does) and answers with what it saw. `/slow` never answers; `/big` streams a large body.
 */
export async function startEchoUpstream(
  jwksUrl: () => string,
  expect: { issuer: string; audience: string } = { issuer: 'cc-suite', audience: 'cc-suite-api' },
): Promise<{
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}> {
  const seen: Seen[] = [];
  let verify: ((t: string) => Promise<Principal>) | undefined;
  const server: Server = createServer(async (req, res) => {
    verify ??= createTokenVerifier({ ...expect, jwks: jwksUrl() });
    const chunks: Buffer[] = [];
    try {
      for await (const c of req) chunks.push(c as Buffer);
    } catch {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, bodyBytes: -1, body: '' });
      return; // the gateway aborted the request (e.g. a body over its limit)
    }
    const body = Buffer.concat(chunks);
    const entry: Seen = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      bodyBytes: body.length,
      body: body.toString('utf8').slice(0, 2000),
    };
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    try {
      if (auth) entry.principal = await verify(auth);
    } catch (err) {
      entry.authError = (err as Error).message;
    }
    seen.push(entry);
    if (req.url?.includes('/slow')) return; // never answers
    if (req.url?.includes('/stream')) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 100; i++) res.write(`${'x'.repeat(1000)}\n`);
      return void res.end();
    }
    res.writeHead(entry.authError ? 401 : 200, { 'content-type': 'application/json', 'x-upstream': 'echo' });
    res.end(JSON.stringify({ ...entry, headers: undefined }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A free TCP port on 127.0.0.1 (listened on and released). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Every upstream setting pointed at one URL. */
export function allUpstreams(url: string): Record<string, string> {
  return Object.fromEntries(
    ['ROUTING', 'PROVIDER_REGISTRY', 'NOTIFIER', 'SUMMARIES', 'ANALYSIS', 'STATISTICS'].map((n) => [
      `UPSTREAM_${n}_URL`,
      url,
    ]),
  );
}

/** The demo client's settings (the test config's defaults). */
export const demo = {
  clientId: 'demo-client',
  secret: 'demo-secret-change-me',
  v0Key: 'demo',
  v0Token: 'demo-v0-token-change-me',
};

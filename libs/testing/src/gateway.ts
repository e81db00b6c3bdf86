import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { dropDatabase, freshName, testInfra } from './infra';
import { eventually } from './poll';
import { ended, stopProcess } from './process';

const root = resolve(__dirname, '../../..');
const demoClient = { id: 'test-demo-client', secret: 'test-demo-secret' };

/** A real gateway process in front of services under test: the suite's public entrance and token issuer. */
export interface GatewayProcess {
  url: string;
  /** The gateway's JWKS, for the services under test to verify its tokens (AUTH_JWKS_URL). */
  jwksUrl: string;
  /**
   * A token the gateway issued for this account and scope, as a client of that account would get it:
   * the account and a client holding the scope are created through the gateway's admin API on first use.
   */
  token(accountId: string, scope: string): Promise<string>;
  /** The gateway's output so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/** A free TCP port on the loopback interface. */
export async function freeLoopbackPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * Reserves a port for a gateway, then starts it (from the workspace's own source, as a process: services
 * never import each other) once the upstreams' URLs are known; services under test can be given
 * `jwksUrl` before the gateway runs.
 */
export async function planGateway(): Promise<{
  jwksUrl: string;
  start(upstreams: Record<string, string>, env?: Record<string, string>): Promise<GatewayProcess>;
}> {
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  return {
    jwksUrl: `${url}/.well-known/jwks.json`,
    start: (upstreams, env = {}) => startGatewayAt(port, upstreams, env),
  };
}

/**
 * Starts a gateway process on a free port in front of `upstreams`; with `env` naming an external issuer
 * (AUTH_JWKS_URL, AUTH_ISSUER, AUTH_AUDIENCE) it checks that issuer's tokens instead of issuing its own.
 */
export async function startGatewayProcess(
  upstreams: Record<string, string>,
  env: Record<string, string> = {},
): Promise<GatewayProcess> {
  return startGatewayAt(await freeLoopbackPort(), upstreams, env);
}

/**
 * Starts a gateway process on `port` with a fresh database, the demo seed (an admin client), generous
 * rate limits, and `UPSTREAM_<SERVICE>_URL` for each entry of `upstreams` (keys like `PROVIDER_REGISTRY`).
 */
async function startGatewayAt(
  port: number,
  upstreams: Record<string, string>,
  env: Record<string, string>,
): Promise<GatewayProcess> {
  const infra = await testInfra();
  const url = `http://127.0.0.1:${port}`;
  const dbName = env.MONGO_DB ?? freshName('gw_front');
  const lines: string[] = [];
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'services/gateway/src/main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: dbName,
      KAFKA_TOPIC_PARTITIONS: '1',
      CC_ENCRYPTION_KEYS: `t1:${randomBytes(32).toString('base64')}`,
      CC_DEMO_SEED: 'true',
      CC_DEMO_CLIENT_ID: demoClient.id,
      CC_DEMO_CLIENT_SECRET: demoClient.secret,
      TOKEN_ATTEMPTS_PER_MINUTE: '100000',
      RATE_LIMIT_RPS: '10000',
      RATE_LIMIT_BURST: '20000',
      LOG_LEVEL: 'warn',
      SHUTDOWN_DEADLINE_MS: '10000',
      ...Object.fromEntries(Object.entries(upstreams).map(([k, v]) => [`UPSTREAM_${k}_URL`, v])),
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const s of [child.stdout, child.stderr]) s?.on('data', (c) => lines.push(String(c)));
  const output = () => lines.join('').slice(-4000);
  let dropping: Promise<void> | undefined;
  const stop = async () => {
    await stopProcess(child);
    // Its database (clients, keys) served only this process; a caller's own MONGO_DB is the caller's to keep.
    if (!env.MONGO_DB) {
      dropping ??= dropDatabase(infra.mongoUrl, dbName);
      await dropping;
    }
  };
  // A gateway that exits while starting fails at once, with its output, rather than after the readiness wait.
  await eventually(async () => ended(child) || (await fetch(`${url}/readyz`).catch(() => undefined))?.ok === true, {
    timeoutMs: 90_000,
    intervalMs: 300,
    what: 'gateway ready',
  })
    .then(async () => {
      if (!ended(child)) return;
      await new Promise((r) => setTimeout(r, 200)); // the last of its output
      throw new Error(`gateway exited ${child.exitCode ?? child.signalCode}: ${output()}`);
    })
    .catch(async (err) => {
      await stop();
      throw err;
    });

  const issue = async (clientId: string, secret: string, scope: string): Promise<string> => {
    const res = await fetch(`${url}/Auth/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
        scope,
      }),
    });
    const body = (await res.json()) as { access_token?: string };
    if (res.status !== 200 || !body.access_token) throw new Error(`token: ${res.status} ${JSON.stringify(body)}`);
    return body.access_token;
  };
  const post = async (path: string, token: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const admins = new Map<string, Promise<string>>();
  const tokens = new Map<string, Promise<string>>();
  const accountAdmin = (accountId: string): Promise<string> => {
    let admin = admins.get(accountId);
    if (!admin) {
      admin = (async () => {
        const root = await issue(demoClient.id, demoClient.secret, 'admin');
        const created = await post('/admin/accounts', root, { accountId, name: accountId });
        const client = created.adminClient as { clientId: string; clientSecret: string };
        return issue(client.clientId, client.clientSecret, 'admin');
      })();
      admins.set(accountId, admin);
    }
    return admin;
  };
  return {
    url,
    jwksUrl: `${url}/.well-known/jwks.json`,
    output,
    stop,
    token: (accountId, scope) => {
      const key = `${accountId} ${scope}`;
      let token = tokens.get(key);
      if (!token) {
        token = (async () => {
          const admin = await accountAdmin(accountId);
          if (scope === 'admin') return admin;
          const client = (await post('/admin/clients', admin, { name: `test ${scope}`, scopes: [scope] })) as {
            clientId: string;
            clientSecret: string;
          };
          return issue(client.clientId, client.clientSecret, scope);
        })();
        tokens.set(key, token);
      }
      return token;
    },
  };
}

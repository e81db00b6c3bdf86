import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { eventually } from '@cc/testing';
import { localBindHost } from '../../deploy/local/services';

/** The repository root. */
export const root = resolve(__dirname, '../..');
const stateFile = resolve(root, '.test-results/e2e-suite.json');
const logDir = resolve(root, '.test-results/e2e-logs');

/** Where global setup writes the self-signed certificate of the test provider endpoints (and the notifier trusts it). */
export const tlsDir = resolve(root, '.test-results/e2e-tls');
/** The PEM certificate (also the trusted CA) of the test provider endpoints. */
export const tlsCertFile = resolve(tlsDir, 'cert.pem');
/** The PEM private key of the test provider endpoints. */
export const tlsKeyFile = resolve(tlsDir, 'key.pem');

/** The services of the suite, their ports in the e2e run (away from `./cc start`'s 8080…). */
export const e2eServices = {
  gateway: 18080,
  routing: 18081,
  'provider-registry': 18082,
  notifier: 18083,
  summaries: 18084,
  analysis: 18085,
  statistics: 18086,
} as const;

/** A service name of the suite. */
export type ServiceName = keyof typeof e2eServices;

interface SuiteState {
  pids: Partial<Record<ServiceName, number>>;
  env: Record<string, string>;
}

/** The gateway's base URL in the e2e run. */
export const gatewayUrl = `http://127.0.0.1:${e2eServices.gateway}`;

/** The environment every service of the e2e suite gets (infrastructure, upstreams, demo seed, dev keys). */
export function suiteEnv(base: Record<string, string>): Record<string, string> {
  const upstream = (name: ServiceName) => `http://127.0.0.1:${e2eServices[name]}`;
  return {
    ...base,
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'info',
    AUTH_JWKS_URL: `${gatewayUrl}/.well-known/jwks.json`,
    UPSTREAM_ROUTING_URL: upstream('routing'),
    UPSTREAM_PROVIDER_REGISTRY_URL: upstream('provider-registry'),
    UPSTREAM_NOTIFIER_URL: upstream('notifier'),
    UPSTREAM_SUMMARIES_URL: upstream('summaries'),
    UPSTREAM_ANALYSIS_URL: upstream('analysis'),
    UPSTREAM_STATISTICS_URL: upstream('statistics'),
    CC_DEMO_SEED: 'true',
  };
}

/**
 * Settings of single services in the e2e run. Consumer groups of their own, so services started by other
 * test tiers on the same broker never take the e2e suite's partitions. Timings shortened where a
 * production default (a 20 s offer, a 5 min second retry, a 30 s delivery lease) would only make the
 * scenarios wait; gateway rate limits raised so the bad-input sweep measures validation, not throttling.
 */
/** The consumer groups of the e2e run's services (see serviceEnv). */
export const e2eConsumerGroups = [
  'cc-e2e.routing',
  'cc-e2e.notifier',
  'cc-e2e.summaries',
  'cc-e2e.analysis',
  'cc-e2e.statistics',
];

const serviceEnv: Partial<Record<ServiceName, Record<string, string>>> = {
  gateway: { RATE_LIMIT_RPS: '1000', RATE_LIMIT_BURST: '2000', TOKEN_ATTEMPTS_PER_MINUTE: '100000' },
  routing: { KAFKA_GROUP_ID: 'cc-e2e.routing', OFFER_TIMEOUT_MS: '120000' },
  summaries: { KAFKA_GROUP_ID: 'cc-e2e.summaries', WATERMARK_GRACE_MS: '1000' },
  analysis: { KAFKA_GROUP_ID: 'cc-e2e.analysis', ANALYSIS_LEASE_MS: '8000' },
  statistics: { KAFKA_GROUP_ID: 'cc-e2e.statistics' },
  notifier: {
    KAFKA_GROUP_ID: 'cc-e2e.notifier',
    NOTIFIER_EXTRA_CA_FILE: tlsCertFile,
    DELIVERY_SCHEDULE: '0,1s,2s,4s,8s,15s,30s,60s',
    ATTEMPT_TIMEOUT_MS: '5000',
    LEASE_MS: '8000',
    BREAKER_RESET_MS: '3000',
  },
};

function readState(): SuiteState {
  return JSON.parse(readFileSync(stateFile, 'utf8')) as SuiteState;
}

/** Starts one service detached, its output appended to `.test-results/e2e-logs/<name>.log`. */
export function startService(name: ServiceName, env: Record<string, string>): number {
  mkdirSync(logDir, { recursive: true });
  const out = openSync(resolve(logDir, `${name}.log`), 'a');
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...env,
    ...serviceEnv[name],
    PORT: String(e2eServices[name]),
    // Bound as the local runner binds them: only the gateway on every interface.
    HOST: localBindHost(name),
    MONGO_DB: `cc_e2e_${name.replace(/-/g, '_')}`,
  };
  // The gateway is the issuer: AUTH_JWKS_URL set would make it defer to an external one (token endpoint 404).
  if (name === 'gateway') delete childEnv.AUTH_JWKS_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', `services/${name}/src/main.ts`], {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', out, out],
    detached: true,
  });
  child.unref();
  const state: SuiteState = existsSync(stateFile) ? readState() : { pids: {}, env };
  state.pids[name] = child.pid as number;
  state.env = env;
  writeFileSync(stateFile, JSON.stringify(state));
  return child.pid as number;
}

/** Waits until the named services (default all) answer /readyz with 200. */
export async function waitReady(
  names: ServiceName[] = Object.keys(e2eServices) as ServiceName[],
  timeoutMs = 120_000,
): Promise<void> {
  for (const name of names) {
    await eventually(() => fetch(`http://127.0.0.1:${e2eServices[name]}/readyz`).then((r) => r.ok), {
      timeoutMs,
      intervalMs: 250,
      what: `${name} ready`,
    });
  }
}

/** Kills a service with a signal (SIGKILL for crash scenarios) and waits until its process is gone. */
export async function killService(name: ServiceName, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const pid = readState().pids[name];
  if (!pid) throw new Error(`${name} is not running`);
  process.kill(pid, signal);
  await eventually(() => !alive(pid), { what: `${name} (pid ${pid}) gone`, timeoutMs: 30_000 });
}

/** Restarts a service with the suite's environment and waits for it to be ready. */
export async function restartService(name: ServiceName): Promise<void> {
  startService(name, readState().env);
  await waitReady([name]);
}

/** Stops every service of the suite (SIGTERM, then SIGKILL after the deadline). */
export async function stopSuite(): Promise<void> {
  if (!existsSync(stateFile)) return;
  const pids = Object.values(readState().pids).filter((p): p is number => typeof p === 'number' && alive(p));
  for (const pid of pids) process.kill(pid, 'SIGTERM');
  try {
    await eventually(() => pids.every((p) => !alive(p)), { timeoutMs: 30_000, what: 'services stopped' });
  } catch {
    for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freeLoopbackPort } from '@cc/testing';
import { serviceNames } from './support/config-requirements';
import { root } from './support/manifests';
import { ServiceProcess } from './support/service-process';

// What the production image runs, without Docker: each service compiled to dist/main.js, deployed with its
// production dependencies only (`pnpm deploy --prod`, as the Dockerfile does) into a scratch folder outside
// the workspace, and started there with `node dist/main.js` against the local stack.

const run = promisify(execFile);
const kafkaBrokers = process.env.KAFKA_BROKERS;
const mongoUrl = process.env.MONGO_URL;
if (!kafkaBrokers || !mongoUrl) throw new Error('KAFKA_BROKERS and MONGO_URL must point at the local stack');

const pnpm = existsSync(resolve(root, '.tools/node_modules/.bin/pnpm'))
  ? resolve(root, '.tools/node_modules/.bin/pnpm')
  : 'pnpm';
const services = serviceNames();
const scratch = mkdtempSync(join(tmpdir(), 'cc-dist-boot-'));
const suffix = `dist${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const running: ServiceProcess[] = [];
const ports: Record<string, number> = {};

beforeAll(async () => {
  await run(process.execPath, [resolve(root, 'deploy/docker/build.cjs'), ...services], { cwd: root });
  for (const s of services) {
    await run(
      pnpm,
      [
        '--filter',
        `@cc/${s}`,
        'deploy',
        '--legacy',
        '--prod',
        '--prefer-offline',
        '--config.node-linker=hoisted',
        join(scratch, s),
      ],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
    );
    ports[s] = await freeLoopbackPort();
  }
  // The operator console, laid out as the gateway image has it (console/dist above the gateway's dist/).
  if (services.includes('gateway')) {
    await run(process.execPath, [resolve(root, 'scripts/build-console.cjs')], { cwd: root });
    cpSync(resolve(root, 'console/dist'), join(scratch, 'gateway/console/dist'), { recursive: true });
  }
  const keys = `dist:${randomBytes(32).toString('base64')}`;
  for (const s of services) {
    const env: Record<string, string> = {
      NODE_ENV: 'production',
      KAFKA_BROKERS: kafkaBrokers,
      MONGO_URL: mongoUrl,
      MONGO_DB: `cc_${s.replace(/-/g, '_')}_${suffix}`,
      KAFKA_GROUP_ID: `cc.${s}.${suffix}`,
      PORT: String(ports[s]),
      CC_ENCRYPTION_KEYS: keys,
      ...(s === 'gateway' ? {} : { AUTH_JWKS_URL: `http://127.0.0.1:${ports.gateway}/.well-known/jwks.json` }),
      // The speech worker's Python packages, where ./cc installed them (the image has them in /app/.tools).
      ...(s === 'analysis' ? { CC_TOOLS_DIR: process.env.CC_TOOLS_DIR ?? resolve(root, '.tools') } : {}),
    };
    running.push(
      ServiceProcess.start(s, env, resolve(root, '.test-results/deploy-dist'), ['dist/main.js'], join(scratch, s)),
    );
  }
}, 600_000);

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe.each(services)('%s compiled and deployed with production dependencies only', (service) => {
  it('holds no development dependency and no TypeScript source', () => {
    const dir = join(scratch, service);
    expect(existsSync(join(dir, 'dist/main.js'))).toBe(true);
    // Summaries' ingest worker is a bundle of its own; the service answers HTTP only once the worker started.
    if (service === 'summaries') expect(existsSync(join(dir, 'dist/ingest.worker.js'))).toBe(true);
    for (const dev of ['typescript', 'tsx', 'jest', '@biomejs/biome', 'esbuild', '@cc/testing']) {
      expect([dev, existsSync(join(dir, 'node_modules', dev))]).toEqual([dev, false]);
    }
  });

  it('starts with `node dist/main.js` and serves /healthz and /readyz against the local stack', async () => {
    const p = running.find((x) => x.name === service);
    if (!p) throw new Error(`${service} not started`);
    await p.waitFor('/healthz');
    await p.waitFor('/readyz');
  }, 180_000);
});

describe('gateway image layout', () => {
  it('serves the operator console at /console from console/dist beside dist/, with its CSP', async () => {
    const p = running.find((x) => x.name === 'gateway');
    if (!p) throw new Error('gateway not started');
    await p.waitFor('/readyz');
    const res = await fetch(`http://127.0.0.1:${ports.gateway}/console`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    const asset = /\/console\/assets\/[^"]+\.js/.exec(html)?.[0];
    expect(asset).toBeDefined();
    expect((await fetch(`http://127.0.0.1:${ports.gateway}${asset}`)).status).toBe(200);
  }, 180_000);
});

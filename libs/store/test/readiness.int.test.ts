import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { Readiness } from '../../kit/src/health';
import { createHttpApp } from '../../kit/src/http/app';
import { createLogger } from '../../kit/src/logger';
import { createMetrics } from '../../kit/src/metrics';
import { eventually } from '../../testing/src';
import { connectStore, storeReadiness } from '../src';

// A private store (FerretDB and its PostgreSQL, same binaries as the local stack) that this test may
// stop and start without disturbing the shared store other tests use.
const script = resolve(__dirname, '../../../deploy/local/ferretdb.sh');
const pgScript = resolve(__dirname, '../../../deploy/local/postgres.sh');
const dataDir = mkdtempSync(join(tmpdir(), 'cc-store-readiness-'));
const port = String(27100 + Math.floor(Math.random() * 800));
const pgPort = String(56000 + Math.floor(Math.random() * 800));
const env = {
  ...process.env,
  CC_DATA_DIR: dataDir,
  MONGO_PORT: port,
  FERRETDB_DEBUG_PORT: 'off',
  POSTGRES_PORT: pgPort,
};
const run = (file: string, cmd: string) =>
  execFileSync('bash', [file, cmd], { env, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
const ferret = (cmd: string) => run(script, cmd);

let conn: Connection;
const logger = createLogger('store-test', 'silent');

beforeAll(async () => {
  run(pgScript, 'start');
  ferret('start');
  conn = await connectStore({
    url: `mongodb://127.0.0.1:${port}`,
    dbName: 'cc_readiness',
    logger,
    connectDeadlineMs: 30_000,
  });
}, 600_000);

afterAll(async () => {
  await conn?.close();
  ferret('stop');
  run(pgScript, 'stop');
  rmSync(dataDir, { recursive: true, force: true });
});

it('/readyz turns 503 while the store is stopped and 200 when it is back', async () => {
  const readiness = new Readiness();
  readiness.add('store', storeReadiness(conn));
  const app = createHttpApp({ logger, metrics: createMetrics('store-test'), readiness });

  expect((await request(app).get('/readyz')).status).toBe(200);
  ferret('stop');
  const down = await eventually(() => request(app).get('/readyz'), {
    accept: (r) => r.status === 503,
    what: '503',
    timeoutMs: 20_000,
  });
  expect(down.body.checks.store).toMatch(/^failing/);
  ferret('start');
  await eventually(() => request(app).get('/readyz'), {
    accept: (r) => r.status === 200,
    what: '200 again',
    timeoutMs: 30_000,
  });
}, 120_000);

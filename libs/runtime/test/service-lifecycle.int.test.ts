import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { eventually, freshName, testInfra } from '../../testing/src';

const root = resolve(__dirname, '../../..');

it('a service becomes ready on the real broker and store, serves metrics, and exits 0 on SIGTERM', async () => {
  const infra = await testInfra();
  const port = 18000 + Math.floor(Math.random() * 1000);
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'services/statistics/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: freshName('cc_stat'),
      // A group of its own: joining a group that a killed process still holds waits out that member's
      // session, and a SIGTERM during the join waits with it.
      KAFKA_GROUP_ID: freshName('stat_lifecycle'),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    const ready = await eventually(
      () => fetch(`http://127.0.0.1:${port}/readyz`).then(async (r) => ({ status: r.status, body: await r.json() })),
      {
        accept: (r) => r.status === 200,
        timeoutMs: 60_000,
        what: 'readyz 200',
      },
    );
    expect(ready.body.checks).toEqual({ store: 'ok', kafka: 'ok' });
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
    expect(metrics).toContain('mongodb_pool_connections');
    expect(metrics).toContain('process_cpu_user_seconds_total');
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
}, 90_000);

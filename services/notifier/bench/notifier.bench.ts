/**
 * Notifier benchmark on the real stack (Kafka, the store, real HTTPS endpoints on loopback):
 * notifications per second and assignment-to-delivery latency (p50/p99) with a healthy provider,
 * then the same while a second provider hangs. Bounded in count and time; writes
 * bench/results/notifier-bench.{json,md}. Run: `pnpm --filter @cc/notifier bench` (KAFKA_BROKERS and
 * MONGO_URL set, e.g. from `./cc stack env`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { CloudEvent } from '@cc/bus';
import { eventually, writeBenchResult } from '@cc/testing';
import { NotifierHarness, newSigningSecret } from '../test/helpers/notifier-harness';
import { ProviderEndpoint } from '../test/helpers/provider-endpoint.server';

const account = `bench-${Date.now().toString(36)}`;
const burst = Number(process.env.BENCH_BURST ?? 200);
const paced = Number(process.env.BENCH_PACED ?? 150);
const ratePerSecond = Number(process.env.BENCH_RATE ?? 15);

interface PhaseResult {
  phase: string;
  notifications: number;
  offeredPerSecond: number | 'burst';
  seconds: number;
  notificationsPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

async function main(): Promise<void> {
  const h = await NotifierHarness.create({ LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' });
  await h.start();
  const healthySecret = newSigningSecret();
  const hangingSecret = newSigningSecret();
  const healthy = await ProviderEndpoint.start(h.tls, [healthySecret]);
  const hanging = await ProviderEndpoint.start(h.tls, [hangingSecret]);
  hanging.reply = () => 'hang';
  for (const [provider, ep, secret] of [
    ['Healthy', healthy, healthySecret],
    ['Hanging', hanging, hangingSecret],
  ] as const) {
    await h.publishProvider({
      accountId: account,
      provider,
      endpoint: ep.url,
      secrets: [{ secret, validUntil: null }],
      version: 1,
    });
  }
  await eventually(async () => (await h.api('GET', '/admin/breakers', account)).body.items.length === 2, {
    what: 'providers known',
    timeoutMs: 60_000,
  });

  const results: PhaseResult[] = [];
  // Interaction id → when its assignment event was published (acknowledged by Kafka).
  const publishedAt = new Map<string, number>();
  const assignment = (provider: string): CloudEvent => h.interaction(account, provider).assigned;

  async function phase(name: string, count: number, rate: number | 'burst', withHanging: boolean): Promise<void> {
    const before = healthy.received.length;
    const start = Date.now();
    const batch = rate === 'burst' ? count : Math.max(1, Math.round(rate / 10));
    for (let sent = 0; sent < count; sent += batch) {
      const events: CloudEvent[] = [];
      for (let i = 0; i < Math.min(batch, count - sent); i++) {
        events.push(assignment('Healthy'));
        if (withHanging && i % 4 === 0) events.push(assignment('Hanging'));
      }
      await h.publishInteraction(events);
      const at = Date.now();
      for (const e of events) publishedAt.set((e.data as { interactionId: string }).interactionId, at);
      if (rate !== 'burst') {
        const due = start + ((sent + batch) / rate) * 1000;
        await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
      }
    }
    await eventually(() => healthy.received.length - before >= count, {
      what: `${name}: ${count} notifications`,
      timeoutMs: 300_000,
      intervalMs: 50,
    });
    const arrivals = healthy.received.slice(before);
    const latencies = arrivals
      .map((r) => r.at - (publishedAt.get(r.notifications[0]?.objectid as string) ?? Number.NaN))
      .sort((a, b) => a - b);
    const seconds = (Math.max(...arrivals.map((r) => r.at)) - start) / 1000;
    results.push({
      phase: name,
      notifications: count,
      offeredPerSecond: rate,
      seconds: Math.round(seconds * 100) / 100,
      notificationsPerSecond: Math.round((count / seconds) * 10) / 10,
      latencyMs: {
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: latencies.at(-1) ?? Number.NaN,
      },
    });
    process.stdout.write(`${JSON.stringify(results.at(-1))}\n`);
  }

  const only = (process.env.BENCH_PHASES ?? '1,2,3,4').split(',');
  if (only.includes('1')) await phase('healthy provider, burst', burst, 'burst', false);
  if (only.includes('2')) await phase('healthy provider, paced', paced, ratePerSecond, false);
  if (only.includes('3')) await phase('healthy + hanging provider, burst', burst, 'burst', true);
  if (only.includes('4')) await phase('healthy + hanging provider, paced', paced, ratePerSecond, true);
  const hangingInFlight = hanging.hangingCount();

  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const meta = {
    when: new Date().toISOString(),
    machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'})`,
    store: process.env.MONGO_URL,
    note: 'Latency: publication of interaction.assigned on Kafka → arrival of the POST at the provider endpoint. The hanging provider answers nothing (attempt timeout 15 s); it held its concurrency limit of requests throughout.',
    hangingRequestsInFlightAtEnd: hangingInFlight,
  };
  writeFileSync(join(dir, 'notifier-bench.json'), `${JSON.stringify({ ...meta, results }, null, 2)}\n`);
  const pacedRun = results.find((r) => r.phase === 'healthy provider, paced');
  writeBenchResult(
    'notifier',
    { results },
    pacedRun
      ? [
          {
            id: 'assign.post',
            value: `p50/p99 ${pacedRun.latencyMs.p50}/${pacedRun.latencyMs.p99} ms`,
            beside: `offered ${pacedRun.offeredPerSecond}/s, delivered ${pacedRun.notificationsPerSecond}/s`,
            numbers: { ...pacedRun.latencyMs, notificationsPerSecond: pacedRun.notificationsPerSecond },
          },
        ]
      : [],
  );
  const table = [
    '| phase | notifications | offered/s | notifications/s | p50 ms | p99 ms | max ms |',
    '|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.phase} | ${r.notifications} | ${r.offeredPerSecond} | ${r.notificationsPerSecond} | ${r.latencyMs.p50} | ${r.latencyMs.p99} | ${r.latencyMs.max} |`,
    ),
  ].join('\n');
  writeFileSync(
    join(dir, 'notifier-bench.md'),
    `# Notifier benchmark\n\n${meta.when}, ${meta.machine}.\n\n${table}\n\n${meta.note}\n`,
  );
  process.stdout.write(`${table}\n`);

  hanging.releaseHanging();
  await h.close();
  await healthy.down();
  await hanging.down();
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${String(err?.stack ?? err)}\n`);
    process.exit(1);
  },
);

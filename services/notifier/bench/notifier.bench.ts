/**
 * Notifier benchmark on the real stack (Kafka, the store, real HTTPS endpoints on loopback):
 * assignment-to-POST latency (p50/p99) at a fixed offered rate (100/s) and a burst of 1,000 to one
 * healthy endpoint, then the same while a second provider's endpoint hangs. Bounded in count and
 * time; never asserts a number. Writes bench/results/notifier-bench.{json,md}; the JSON's `rows` are
 * `{name, value, unit, note}` for the suite's summary table. Run: `pnpm --filter @cc/notifier bench`
 * (KAFKA_BROKERS and MONGO_URL set, e.g. from `./cc stack env`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { CloudEvent } from '@cc/bus';
import { type BenchRow, eventually, writeBenchResult } from '@cc/testing';
import { NotifierHarness, newSigningSecret } from '../test/helpers/notifier-harness';
import { ProviderEndpoint } from '../test/helpers/provider-endpoint.server';

const account = `bench-${Date.now().toString(36)}`;
const burst = Number(process.env.BENCH_BURST ?? 1000);
const paced = Number(process.env.BENCH_PACED ?? 1000);
const ratePerSecond = Number(process.env.BENCH_RATE ?? 100);

interface PhaseResult {
  phase: string;
  notifications: number;
  offeredPerSecond: number | 'burst';
  seconds: number;
  notificationsPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  incomplete?: string;
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
  // As routing publishes them: queued (route, requestId) then assigned, on the interaction's partition.
  const assignment = (provider: string): CloudEvent[] => {
    const it = h.interaction(account, provider);
    return [it.queued, it.assigned];
  };

  async function phase(name: string, count: number, rate: number | 'burst', withHanging: boolean): Promise<void> {
    const before = healthy.received.length;
    const start = Date.now();
    // Paced: a small batch every 20 ms (100/s → 2 per 20 ms), as assignments arrive in practice.
    const batch = rate === 'burst' ? count : Math.max(1, Math.round(rate / 50));
    for (let sent = 0; sent < count; sent += batch) {
      const events: CloudEvent[] = [];
      for (let i = 0; i < Math.min(batch, count - sent); i++) {
        events.push(...assignment('Healthy'));
        if (withHanging && i % 4 === 0) events.push(...assignment('Hanging'));
      }
      // Latency counts from just before the publish: the Kafka round trip is part of the path.
      const at = Date.now();
      for (const e of events) publishedAt.set((e.data as { interactionId: string }).interactionId, at);
      await h.publishInteraction(events);
      if (rate !== 'burst') {
        const due = start + ((sent + batch) / rate) * 1000;
        await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
      }
    }
    let incomplete: string | undefined;
    try {
      await eventually(() => healthy.received.length - before >= count, {
        what: `${name}: ${count} notifications`,
        timeoutMs: Number(process.env.BENCH_TIMEOUT_MS ?? 300_000),
        intervalMs: 50,
      });
    } catch (err) {
      // Debugging aid: NOTIFIER_TEST_LOG_FILE=/tmp/x.log keeps the service's log lines.
      if (process.env.NOTIFIER_TEST_LOG_FILE) writeFileSync(process.env.NOTIFIER_TEST_LOG_FILE, h.logs.text());
      // Reported, not thrown: the other phases' figures still count.
      incomplete = `only ${healthy.received.length - before} of ${count} arrived within the timeout`;
      process.stderr.write(`${name}: ${(err as Error).message}\n`);
    }
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
      ...(incomplete ? { incomplete } : {}),
    });
    process.stdout.write(`${JSON.stringify(results.at(-1))}\n`);
  }

  const only = (process.env.BENCH_PHASES ?? '1,2,3,4').split(',');
  if (only.includes('2')) await phase('healthy provider, paced', paced, ratePerSecond, false);
  if (only.includes('1')) await phase('healthy provider, burst', burst, 'burst', false);
  if (only.includes('3')) await phase('healthy + hanging provider, burst', burst, 'burst', true);
  if (only.includes('4')) await phase('healthy + hanging provider, paced', paced, ratePerSecond, true);
  const hangingInFlight = hanging.hangingCount();

  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const meta = {
    when: new Date().toISOString(),
    machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'})`,
    store: process.env.MONGO_URL,
    note: 'Latency: just before the interaction.assigned event is published to Kafka → arrival of the POST at the provider endpoint (HTTPS, keep-alive). The hanging provider answers nothing (attempt timeout 15 s); it holds its concurrency limit of requests throughout, then its breaker opens.',
    hangingRequestsInFlightAtEnd: hangingInFlight,
  };
  const rows = summaryRows(results);
  writeFileSync(join(dir, 'notifier-bench.json'), `${JSON.stringify({ ...meta, rows, results }, null, 2)}\n`);
  writeBenchResult('notifier', { details: meta }, tableRows(results));
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
  process.stdout.write(`${table}\n\n`);
  for (const r of rows) process.stdout.write(`${r.name}: ${r.value} ${r.unit}${r.note ? ` (${r.note})` : ''}\n`);

  hanging.releaseHanging();
  await h.close();
  await healthy.down();
  await hanging.down();
}

/** The summary rows: `{name, value, unit, note}`, pairs measured in this one run. */
function summaryRows(results: PhaseResult[]): { name: string; value: number; unit: string; note: string }[] {
  const by = (phase: string) => results.find((r) => r.phase === phase);
  const rows: { name: string; value: number; unit: string; note: string }[] = [];
  const paced = by('healthy provider, paced');
  const pacedHang = by('healthy + hanging provider, paced');
  const burstOk = by('healthy provider, burst');
  const burstHang = by('healthy + hanging provider, burst');
  const offered = `${ratePerSecond}/s offered`;
  const flag = (r: PhaseResult | undefined) => (r?.incomplete ? `; INCOMPLETE: ${r.incomplete}` : '');
  if (paced) {
    const note = `${offered}${flag(paced)}`;
    rows.push({ name: 'notifier assignment→POST p50', value: paced.latencyMs.p50, unit: 'ms', note });
    rows.push({ name: 'notifier assignment→POST p99', value: paced.latencyMs.p99, unit: 'ms', note });
  }
  if (pacedHang) {
    const note = `${offered}, second endpoint hanging${flag(pacedHang)}`;
    rows.push({
      name: 'notifier assignment→POST p50, other endpoint hanging',
      value: pacedHang.latencyMs.p50,
      unit: 'ms',
      note,
    });
    rows.push({
      name: 'notifier assignment→POST p99, other endpoint hanging',
      value: pacedHang.latencyMs.p99,
      unit: 'ms',
      note,
    });
  }
  if (paced && pacedHang) {
    rows.push({
      name: 'notifier p99 ratio hanging/healthy',
      value: Math.round((pacedHang.latencyMs.p99 / paced.latencyMs.p99) * 100) / 100,
      unit: 'x',
      note: 'target ≤ 1.2',
    });
  }
  if (burstOk) {
    const note = `burst of ${burstOk.notifications} to one endpoint; p99 ${burstOk.latencyMs.p99} ms${flag(burstOk)}`;
    rows.push({ name: 'notifier burst delivery rate', value: burstOk.notificationsPerSecond, unit: '/s', note });
  }
  if (burstHang) {
    const note = `burst of ${burstHang.notifications}, second endpoint hanging; p99 ${burstHang.latencyMs.p99} ms${flag(burstHang)}`;
    rows.push({
      name: 'notifier burst delivery rate, other endpoint hanging',
      value: burstHang.notificationsPerSecond,
      unit: '/s',
      note,
    });
  }
  return rows;
}

/** The rows of `./cc bench`'s table (bench/summary.ts): paced latency, the same with a hanging endpoint, bursts. */
function tableRows(results: PhaseResult[]): BenchRow[] {
  const by = (phase: string) => results.find((r) => r.phase === phase);
  const paced = by('healthy provider, paced');
  const pacedHang = by('healthy + hanging provider, paced');
  const burstOk = by('healthy provider, burst');
  const burstHang = by('healthy + hanging provider, burst');
  const rows: BenchRow[] = [];
  const latency = (r: PhaseResult) => `p50/p99 ${r.latencyMs.p50}/${r.latencyMs.p99} ms`;
  if (paced)
    rows.push({
      id: 'assign.post',
      value: latency(paced),
      beside: `offered ${ratePerSecond}/s, delivered ${paced.notificationsPerSecond}/s`,
      numbers: { ...paced.latencyMs, notificationsPerSecond: paced.notificationsPerSecond },
    });
  if (pacedHang)
    rows.push({
      id: 'assign.post.hanging',
      value: latency(pacedHang),
      beside: paced
        ? `p99 ${Math.round((pacedHang.latencyMs.p99 / paced.latencyMs.p99) * 100) / 100}× the run without a hanging endpoint`
        : 'second endpoint hanging',
      numbers: {
        ...pacedHang.latencyMs,
        ...(paced ? { p99Ratio: pacedHang.latencyMs.p99 / paced.latencyMs.p99 } : {}),
      },
    });
  if (burstOk)
    rows.push({
      id: 'assign.burst',
      value: `${burstOk.notificationsPerSecond}/s`,
      beside: `burst of ${burstOk.notifications}; with a second endpoint hanging ${burstHang?.notificationsPerSecond ?? 'n/a'}/s`,
      numbers: {
        notificationsPerSecond: burstOk.notificationsPerSecond,
        ...(burstHang ? { withHangingPerSecond: burstHang.notificationsPerSecond } : {}),
      },
    });
  return rows;
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${String(err?.stack ?? err)}\n`);
    process.exit(1);
  },
);

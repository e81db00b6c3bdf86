/**
 * `./cc simulate`: sets up (idempotently) a simulated contact center in the client's account and runs it through
 * the suite's public APIs with a live view; ends with cross-checks against the suite's own records and a JSON
 * report under .data/simulate/. `--soak 30m` also samples every service and judges memory growth and errors.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ApiError, type Observation, SuiteApi } from './api';
import { crossCheck } from './checks';
import { Engine } from './engine';
import { latencySummary, type NotificationTiming, slowest, timeNotification } from './latency';
import { type Options, parseOptions, UsageError } from './options';
import { callPlan, topology } from './plan';
import { WebhookReceiver } from './receiver';
import { install, ownAccount } from './setup';
import { Sampler, type ServiceSoak, serviceNames, summarise } from './soak';
import { progressLine, renderView } from './view';

const root = resolve(__dirname, '../../..');
const out = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  let opts: Options;
  try {
    opts = parseOptions(process.argv.slice(2), process.env, root);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const runId = `${opts.prefix}-${Date.now().toString(36)}`;
  const tty = process.stdout.isTTY === true;
  let engine: Engine | undefined;
  const operator = { clientId: opts.clientId, clientSecret: opts.clientSecret };
  const api = new SuiteApi(opts.gatewayUrl, operator, (o: Observation) => engine?.observe(o));
  const topo = topology(opts.prefix, opts.agents, opts.seed);
  const plans = callPlan({
    seed: opts.seed,
    callsPerHour: opts.callsPerHour,
    durationMs: opts.durationMs,
    ahtMs: opts.ahtMs,
    recordedShare: opts.recordedShare,
    routes: topo.routes,
  });
  out(
    `[simulate] ${opts.gatewayUrl}: ${opts.agents} agents, ${opts.callsPerHour} calls/h (${plans.length} planned), AHT ${opts.ahtMs / 1000} s, ${opts.durationMs / 1000} s, seed ${opts.seed}${opts.soak ? ', soak' : ''}`,
  );

  // A fixed port per suite by default, so the registered endpoint stays the same from run to run.
  const headerToken = randomBytes(18).toString('base64url');
  let receiver: WebhookReceiver;
  try {
    receiver = await WebhookReceiver.start({
      host: opts.receiverHost,
      port: opts.receiverPort || opts.metricsBase + 10,
      cert: opts.tlsCert,
      key: opts.tlsKey,
      headerToken,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      process.stderr.write(
        `[simulate] no certificate at ${opts.tlsCert}: start the suite with ./cc start (it makes one) or pass --tls-cert/--tls-key\n`,
      );
      return 2;
    }
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    receiver = await WebhookReceiver.start({
      host: opts.receiverHost,
      port: 0,
      cert: opts.tlsCert,
      key: opts.tlsKey,
      headerToken,
    });
  }
  const endpoint = opts.publicUrl || receiver.url();
  out(`[simulate] webhook receiver ${receiver.url()}${opts.publicUrl ? ` (registered as ${endpoint})` : ''}`);

  let installed: Awaited<ReturnType<typeof install>>;
  try {
    const stateFile = resolve(opts.reportDir, 'state.json');
    await ownAccount(api, opts.prefix, stateFile, operator);
    installed = await install(api, topo, endpoint, headerToken, stateFile);
  } catch (err) {
    await receiver.close();
    if (err instanceof ApiError) {
      process.stderr.write(`[simulate] setup failed: ${err.message}\n`);
      if (err.code === 'PROVIDER.ENDPOINT_NOT_ALLOWED') {
        process.stderr.write(
          '[simulate] the suite refuses a loopback endpoint: run it with ENDPOINT_ALLOWLIST=127.0.0.1,localhost (./cc start does) or pass --public-url\n',
        );
      }
      return 1;
    }
    throw err;
  }
  receiver.secrets = installed.signingSecrets;
  out(
    `[simulate] account ${installed.accountId}: ${topo.routes.length} routes, ${topo.skills.length} skills, ${topo.agents.length} agents, provider ${topo.provider}${installed.cleanedUp ? `; finished ${installed.cleanedUp} leftover interaction(s)` : ''}`,
  );

  const run = new Engine(
    api,
    plans,
    topo.agents.map((plan) => ({ plan, agentId: installed.agentIds.get(plan.username) as string })),
    {
      runId,
      seed: opts.seed,
      provider: topo.provider,
      routes: topo.routes,
      durationMs: opts.durationMs,
      drainMs: opts.drainMs,
    },
  );
  engine = run;
  const seenWebhooks = new Set<string>();
  const timings: NotificationTiming[] = [];
  let redelivered = 0;
  receiver.onArrival = (a) => {
    const id = `${a.webhookId} ${a.key}`;
    if (seenWebhooks.has(id)) {
      redelivered++;
      return;
    }
    seenWebhooks.add(id);
    if (!run.byInteraction.has(a.item.objectid)) return;
    // Timed from the event (OccurredAt), not from the desk's answers: see latency.ts.
    const t = timeNotification(a.item, a.webhookId, a.at, a.requestId);
    timings.push(t);
    if (t.latencyMs !== null) run.latencies.push(t.latencyMs);
  };

  const sampler = opts.soak ? new Sampler(opts.metricsBase) : undefined;
  const samplerTimer = sampler
    ? setInterval(() => void sampler.sample().catch(() => undefined), opts.sampleEveryMs)
    : undefined;
  if (sampler) await sampler.sample();
  const soakLine = () => {
    if (!sampler) return undefined;
    const parts = serviceNames.map((n) => {
      const last = sampler.samples.get(n)?.at(-1);
      return `${n} ${last?.rssBytes ? Math.round(last.rssBytes / 1048576) : '?'}MB lag ${last?.lag ?? '?'}`;
    });
    return parts.join(' | ');
  };
  let ticks = 0;
  const title = `cc simulate ${runId}`;
  const viewTimer = setInterval(() => {
    ticks++;
    const s = run.snapshot();
    if (tty) {
      const text = renderView(s, {
        title,
        durationMs: opts.durationMs,
        received: seenWebhooks.size,
        duplicates: redelivered,
        soakLine: soakLine(),
      });
      process.stdout.write(`\x1b[H\x1b[2J${text}\n`);
    } else if (ticks % 10 === 0) out(progressLine(s, seenWebhooks.size));
  }, 1000);

  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
    out('\n[simulate] interrupted: stopping arrivals, draining');
    run.arrivalsEnd = Date.now();
  });
  await run.run();
  clearInterval(viewTimer);
  if (samplerTimer) clearInterval(samplerTimer);
  if (sampler) await sampler.sample();
  out(progressLine(run.snapshot(), seenWebhooks.size));
  out('[simulate] cross-checking with the suite');
  const checks = await crossCheck(api, run, receiver, {
    timeoutMs: 150_000,
    summariesEnabled: installed.summariesEnabled,
    log: (line) => out(`[simulate] ${line}`),
  });
  await receiver.close();

  const snapshot = run.snapshot();
  const unfinished = run.unfinished().map((c) => `${c.interactionId} (${c.status})`);
  const lostCalls = unfinished.length + checks.statistics.missing.length;
  let soak: { windowMs: number; services: Record<string, ServiceSoak>; verdict: string[] } | undefined;
  if (sampler) {
    const windowMs = Math.min(5 * 60_000, opts.durationMs / 4);
    const services = Object.fromEntries(
      serviceNames.map((n) => [n, summarise(sampler.samples.get(n) ?? [], windowMs)]),
    );
    const verdict: string[] = [];
    for (const [name, s] of Object.entries(services)) {
      if (s.rssGrowth !== null && s.rssGrowth > opts.maxRssGrowth)
        verdict.push(`${name}: RSS grew ${(s.rssGrowth * 100).toFixed(1)} %`);
      if (s.errors) verdict.push(`${name}: ${s.errors} error(s) (5xx answers, dead-lettered events)`);
      if (s.samples === 0 || s.rssGrowth === null) verdict.push(`${name}: not sampled`);
    }
    soak = { windowMs, services, verdict };
  }
  const clientErrors = Object.values(snapshot.errors).reduce((a, b) => a + b, 0);
  const problems = [
    ...(lostCalls ? [`${lostCalls} lost call(s)`] : []),
    ...checks.disagreements,
    ...(clientErrors ? [`${clientErrors} unexpected answer(s) from the suite`] : []),
    ...(soak?.verdict ?? []),
  ];
  const report = {
    runId,
    startedAt: new Date(run.startedAt).toISOString(),
    endedAt: new Date().toISOString(),
    interrupted,
    options: { ...opts, clientSecret: undefined, tlsKey: undefined },
    machine: 'timings depend on the machine and its load (numbers from a shared 2-core machine are noisy)',
    summary: snapshot,
    lostCalls,
    unfinished,
    checks,
    notificationLatency: {
      ...latencySummary(timings),
      slowest: slowest(timings, (id) => run.byInteraction.get(id), 20),
    },
    soak,
    ok: problems.length === 0,
    problems,
  };
  mkdirSync(opts.reportDir, { recursive: true });
  const file = resolve(opts.reportDir, `${runId}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(resolve(opts.reportDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);

  out('');
  out(
    renderView(snapshot, {
      title: `summary ${runId}`,
      durationMs: opts.durationMs,
      received: seenWebhooks.size,
      duplicates: redelivered,
    }),
  );
  const n = checks.notifications;
  out(
    `checks     notifications ${n.received}/${n.expected} (missing ${n.missing.length}, redelivered ${n.duplicates}, doubled ${n.doubled.length}, bad signatures ${n.badSignatures})`,
  );
  const lat = report.notificationLatency;
  out(
    `           notification latency from the event: p50 ${lat.p50 ?? '-'} ms, p90 ${lat.p90 ?? '-'} ms, p99 ${lat.p99 ?? '-'} ms, max ${lat.max ?? '-'} ms (${lat.retried} on a retry; slowest in the report)`,
  );
  out(`           statistics ${checks.statistics.found}/${checks.statistics.expected} interaction records`);
  if (checks.summaries.enabled) {
    out(
      `           summaries Answered ${checks.summaries.answeredInSummaries} vs ${checks.summaries.answeredBySimulator} simulated (upTo ${checks.summaries.upTo ?? '-'})${checks.summaries.note ? `; ${checks.summaries.note}` : ''}`,
    );
  }
  out(
    `           analysis ${checks.analysis.uploaded} recording(s) uploaded: ${JSON.stringify(checks.analysis.statuses)}`,
  );
  if (soak) {
    for (const [name, s] of Object.entries(soak.services)) {
      out(
        `soak       ${name.padEnd(17)} RSS ${s.rssFirstMb} -> ${s.rssLastMb} MB (${s.rssGrowth === null ? '-' : `${(s.rssGrowth * 100).toFixed(1)} %`})  CPU ${s.cpuPercentMean ?? '-'} %  lag max ${s.lagMax ?? '-'}  errors ${s.errors ?? '-'}`,
      );
    }
  }
  out(`lost calls ${lostCalls}`);
  out(problems.length ? `PROBLEMS   ${problems.join('; ')}` : 'OK         no disagreements');
  out(`report     ${file}`);
  return opts.strict && problems.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`[simulate] ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);

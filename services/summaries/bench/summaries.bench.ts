/**
 * Summaries benchmark on the real local stack. (1) One day of agent activity for 500 agents (two events
 * per agent and period) is produced on a fresh topic, then consumed twice in the same run: by a raw
 * kafkajs consumer that only parses each message, and by the summaries service (validation, dedupe,
 * aggregation, one bulk write per batch, commit): events per second of each and their ratio. (2) The
 * service is restarted so the 48,000 stored buckets are loaded back, and `limit=1000` pages of the
 * day are fetched over HTTP: p50/p99. Writes bench/results/summaries.json (`rows`: name, value, unit,
 * note). Benchmarks never assert times. Run: `node --import tsx services/summaries/bench/summaries.bench.ts`
 * with KAFKA_BROKERS and MONGO_URL set (`./cc bench` does).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { CapturedLogs, freshName, startTestIssuer, testInfra, writeBenchResult } from '@cc/testing';
import { Kafka, logLevel } from 'kafkajs';
import { loadServiceConfig } from '../src/config';
import { periodMs } from '../src/domain/buckets';
import { type SummariesService, startService } from '../src/service';

const agents = Number(process.env.BENCH_AGENTS ?? 500);
const periods = Number(process.env.BENCH_PERIODS ?? 96);
const queries = Number(process.env.BENCH_QUERIES ?? 200);
const accountId = `bench-${Date.now().toString(36)}`;
const cpuProfileDir = process.env.BENCH_CPU_PROFILE_DIR;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const iso = (t: number) => new Date(t).toISOString();
const say = (line: string) => process.stdout.write(`${line}\n`);
const load = () => loadavg()[0]?.toFixed(1) ?? '?';
const cpuMs = (u: NodeJS.CpuUsage) => Math.round((u.user + u.system) / 1000);

/** Starts the V8 CPU profiler when BENCH_CPU_PROFILE_DIR is set; the returned stop writes `<name>.cpuprofile` there. */
async function profile(name: string): Promise<() => Promise<void>> {
  if (!cpuProfileDir) return async () => undefined;
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(cpuProfileDir, { recursive: true });
    writeFileSync(resolve(cpuProfileDir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

/** One day of two events per agent and period: a presence change (closing the previous state) and a call. */
function dayOfEvents(day: number): { key: string; value: string }[] {
  const out: { key: string; value: string }[] = [];
  for (let a = 0; a < agents; a++) {
    const agentId = randomUUID();
    const offset = ((a * 7919) % 600) * 1000;
    let seq = 0;
    let state = 'LoggedOut';
    let since = 0;
    const event = (type: string, at: number, data: Record<string, unknown>) => ({
      key: `${accountId}:${agentId}`,
      value: JSON.stringify({
        specversion: '1.0',
        id: randomUUID(),
        source: '/cc/bench',
        type,
        time: iso(at),
        subject: agentId,
        accountid: accountId,
        datacontenttype: 'application/json',
        data: { agentId, agentUsername: `agent${a}`, occurredAt: iso(at), sequence: ++seq, ...data },
      }),
    });
    for (let p = 0; p < periods; p++) {
      const at = day + p * periodMs + offset;
      const next = state === 'Ready' ? 'Away' : 'Ready';
      out.push(
        event('agent-activity.presence-changed', at, {
          presence: next,
          eligibleForRouting: next === 'Ready',
          reason: null,
          previous:
            state === 'LoggedOut'
              ? null
              : {
                  presence: state,
                  eligibleForRouting: state === 'Ready',
                  reason: null,
                  startedAt: iso(since),
                  durationMs: at - since,
                },
        }),
      );
      state = next;
      since = at;
      const channel = randomUUID();
      const interaction = {
        guid: channel,
        medium: 'Phone',
        mediumManager: 'CC',
        direction: 'Inbound',
        interactionType: 'live',
      };
      out.push(
        event('agent-activity.segment-ended', at + 240_000, {
          segment: 'Connected',
          startedAt: iso(at + 60_000),
          endedAt: iso(at + 240_000),
          durationMs: 180_000,
          status: 'Completed',
          interaction,
          channel: { guid: channel },
          outcome: null,
        }),
      );
    }
  }
  return out;
}

async function main(): Promise<void> {
  const infra = await testInfra();
  const kafka = new Kafka({ clientId: 'summaries-bench', brokers: infra.kafkaBrokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const activityTopic = freshName('bench.agent-activity');
  const accountTopic = freshName('bench.account');
  const partitions = Number(process.env.KAFKA_TOPIC_PARTITIONS ?? 3);
  await admin.createTopics({
    topics: [activityTopic, accountTopic].map((topic) => ({ topic, numPartitions: partitions })),
    waitForLeaders: true,
  });

  const day = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) - 86_400_000;
  const messages = dayOfEvents(day);
  const producer = kafka.producer();
  await producer.connect();
  const produceStart = Date.now();
  for (let i = 0; i < messages.length; i += 500) {
    await producer.send({ topic: activityTopic, messages: messages.slice(i, i + 500) });
  }
  await producer.send({
    topic: accountTopic,
    messages: [
      {
        key: accountId,
        value: JSON.stringify({
          specversion: '1.0',
          id: randomUUID(),
          source: '/cc/bench',
          type: 'account.feature-flags-changed',
          time: iso(Date.now()),
          subject: accountId,
          accountid: accountId,
          datacontenttype: 'application/json',
          data: {
            flags: { agentSummaries: true, conversationAnalysis: false, v0Statistics: false },
            changed: ['agentSummaries'],
            occurredAt: iso(Date.now()),
          },
        }),
      },
    ],
  });
  const produceSeconds = (Date.now() - produceStart) / 1000;
  say(`[bench] produced ${messages.length} events in ${produceSeconds.toFixed(1)} s`);

  // Raw kafkajs: a fresh group reads the topic with the service's fetch settings (partitions side by side, 4 MiB per
  // partition), parsing each message (the service parses too), nothing else: the fair upper bound of a consumer.
  // Both consumers are timed from having joined their group (kafkajs `run` resolves then; the service records
  // it as `consumingSince`) to the last event (raw) or the last commit (summaries). The service's boot (store,
  // topics, load) is reported beside it, not inside the ratio.
  const rawConnect = Date.now();
  const raw = kafka.consumer({ groupId: freshName('bench-raw'), maxBytesPerPartition: 4 * 1024 * 1024 });
  await raw.connect();
  await raw.subscribe({ topic: activityTopic, fromBeginning: true });
  let rawCount = 0;
  let rawLast = 0;
  let rawResolve!: () => void;
  const rawDone = new Promise<void>((resolve) => {
    rawResolve = resolve;
  });
  await raw.run({
    partitionsConsumedConcurrently: 8,
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) JSON.parse(m.value?.toString('utf8') ?? 'null');
      rawCount += batch.messages.length;
      rawLast = Date.now();
      if (rawCount >= messages.length) rawResolve();
    },
  });
  const rawStart = Date.now();
  const rawCpu0 = process.cpuUsage();
  const rawLoad = load();
  await rawDone;
  const rawCpu = cpuMs(process.cpuUsage(rawCpu0));
  await raw.disconnect();
  const rawPerSecond = messages.length / ((rawLast - rawStart) / 1000);
  const rawWithJoin = messages.length / ((rawLast - rawConnect) / 1000);
  say(
    `[bench] raw kafkajs: ${Math.round(rawPerSecond)} events/s, process CPU ${rawCpu} ms, load ${rawLoad} → ${load()}`,
  );

  // The summaries service: first event handled to every offset committed (after the batch's store write).
  const issuer = await startTestIssuer();
  const group = freshName('bench-summaries');
  const dbName = freshName('cc_summaries_bench');
  const config = {
    ...loadServiceConfig({
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: dbName,
      KAFKA_GROUP_ID: group,
      AGENT_ACTIVITY_TOPIC: activityTopic,
      ACCOUNT_TOPIC: accountTopic,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      ...issuer.env,
    }),
    PORT: 0,
  };
  const end = new Map((await admin.fetchTopicOffsets(activityTopic)).map((o) => [o.partition, o.offset]));
  let lastReport = Date.now();
  const committedAll = async () => {
    const [t] = await admin.fetchOffsets({ groupId: group, topics: [activityTopic] });
    const parts = t?.partitions ?? [];
    if (Date.now() - lastReport > 5000) {
      lastReport = Date.now();
      say(`[bench] committed ${JSON.stringify(parts.map((p) => p.offset))} of ${JSON.stringify([...end.values()])}`);
    }
    return parts.every((p) => p.offset === end.get(p.partition));
  };
  const logs = new CapturedLogs();
  const aggStart = Date.now();
  let service: SummariesService = await startService(config, {
    ...(process.env.BENCH_LOG_LEVEL ? {} : { logDestination: logs }),
    exitOnShutdown: false,
  });
  // CPU from just after the group joined (startService returns then) to the last commit seen.
  const aggCpu0 = process.cpuUsage();
  const aggLoad = load();
  const stopProfile = await profile('summaries-consume');
  while (!(await committedAll())) await new Promise((r) => setTimeout(r, 20));
  const aggDone = Date.now();
  const aggCpu = cpuMs(process.cpuUsage(aggCpu0));
  await stopProfile();
  const aggSeconds = (aggDone - service.consumingSince) / 1000;
  const aggPerSecond = messages.length / aggSeconds;
  const bootSeconds = (service.consumingSince - aggStart) / 1000;
  const rssMb = Math.round(process.memoryUsage().rss / 1e6);
  say(
    `[bench] summaries: ${Math.round(aggPerSecond)} events/s (${aggSeconds.toFixed(1)} s from joined to last commit; boot ${bootSeconds.toFixed(1)} s before), process CPU ${aggCpu} ms, load ${aggLoad} → ${load()}; ${(aggPerSecond / rawPerSecond).toFixed(2)}× raw`,
  );

  // Restart: the day's buckets come back from the store.
  await service.stop();
  const loadStart = Date.now();
  service = await startService(config, { logDestination: logs, exitOnShutdown: false });
  const loadSeconds = (Date.now() - loadStart) / 1000;
  const token = await issuer.token({ accountId, scopes: 'stats' });
  const get = async (page: number) => {
    const res = await fetch(
      `${service.url()}/stats/wfm/agent-summaries?start=${iso(day)}&end=${iso(day + 86_400_000)}&limit=1000&page=${page}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    return (await res.json()) as { meta: { totalCount: number; pageCount: number }; items: unknown[] };
  };
  const first = await get(1);
  say(`[bench] stored: ${first.meta.totalCount} summaries, ${first.meta.pageCount} pages of 1000`);
  const latencies: number[] = [];
  let bytes = 0;
  for (let i = 0; i < queries; i++) {
    const page = 1 + (i % Math.max(1, first.meta.pageCount));
    const t0 = performance.now();
    const body = await get(page);
    latencies.push(performance.now() - t0);
    bytes += JSON.stringify(body).length;
  }
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  say(`[bench] limit=1000 page: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (${queries} requests)`);

  const rows = [
    {
      name: `summaries: ${first.meta.totalCount} stored (1 day × ${agents} agents), limit=1000 page p99`,
      value: Math.round(p99 * 10) / 10,
      unit: 'ms',
      note: `p50 ${p50.toFixed(1)} ms; ${queries} sequential GETs straight to the service (no gateway), ~${Math.round(bytes / queries / 1024)} KiB per page; target ≤ 100 ms`,
    },
    {
      name: 'summaries: agent-activity events aggregated',
      value: Math.round(aggPerSecond),
      unit: 'events/s',
      note: `${messages.length} events, schema validation + dedupe + aggregation (one call per fetched batch) + grouped, deflated log writes (pipelined: the next batches are handled while a write runs) + commits after each write; from the group joined to the last commit (boot before it: ${bootSeconds.toFixed(1)} s; with boot ${Math.round(messages.length / ((aggDone - aggStart) / 1000))}/s); ${(aggPerSecond / rawPerSecond).toFixed(2)}× raw kafkajs consume (target ≥ 0.5×); process CPU ${aggCpu} ms (raw ${rawCpu} ms), load ${aggLoad}`,
    },
    {
      name: 'raw kafkajs consume, same topic and run',
      value: Math.round(rawPerSecond),
      unit: 'events/s',
      note: `eachBatch parsing each message, the service's fetch settings (8 partitions at once, 4 MiB per partition); from the group joined to the last message (with connect and join: ${Math.round(rawWithJoin)}/s)`,
    },
    {
      name: `summaries: start with 1 day × ${agents} agents stored (load into memory)`,
      value: Math.round(loadSeconds * 10) / 10,
      unit: 's',
      note: `process RSS ${rssMb} MB after aggregating (bench and service in one process)`,
    },
  ];
  const ratio = aggPerSecond / rawPerSecond;
  writeBenchResult('summaries', { details: rows }, [
    {
      id: 'summaries.consume',
      value: `${Math.round(aggPerSecond)} events/s (${ratio.toFixed(2)}× raw)`,
      beside: `raw kafkajs ${Math.round(rawPerSecond)} events/s, ${messages.length} events, same topic and run`,
      numbers: { eventsPerSecond: Math.round(aggPerSecond), rawPerSecond: Math.round(rawPerSecond), ratio },
    },
    {
      id: 'summaries.query',
      value: `p50/p99 ${p50.toFixed(1)}/${p99.toFixed(1)} ms`,
      beside: `${first.meta.totalCount} stored (1 day × ${agents} agents), limit=1000, ${queries} GETs`,
      numbers: { p50Ms: p50, p99Ms: p99, stored: first.meta.totalCount },
    },
  ]);
  say(JSON.stringify(rows, null, 2));

  await service.conn
    .getClient()
    .db(dbName)
    .dropDatabase()
    .catch(() => undefined);
  await service.stop();
  await admin.deleteTopics({ topics: [activityTopic, accountTopic] }).catch(() => undefined);
  await admin.disconnect();
  await producer.disconnect();
  await issuer.close();
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${String((err as Error)?.stack ?? err)}\n`);
    process.exit(1);
  },
);

/**
 * Statistics on the real broker and store:
 * 1. the store's raw rates (insertMany of small documents, the indexed find of one hour chunk);
 * 2. N agent-activity records (default 1,000,000) for one account over 31 days, loaded as hour chunks with
 *    insertMany, then 1-day `GET /stats/agent-activities?limit=5000` queries through the service's HTTP API (p50/p99);
 * 3. agent-activity events recorded per second by the service's consumer (validation, buffering, pipelined group
 *    writes, commits after them) against a raw kafkajs consumer of the same topic with the same fetch settings that
 *    parses each message; both timed from the group joined to the last message (raw) or the last commit (service).
 * Prints the numbers and writes bench/results/statistics.json (`rows` of {name, value, unit, note}); asserts nothing.
 * Usage: tsx services/statistics/bench/statistics.bench.ts [records=1000000] [queries=10] [events=50000]
 * (or BENCH_STAT_RECORDS). Records are loaded as one chunk per hour (as the service's merge leaves them): on
 * FerretDB over PostgreSQL 1,000,000 took 2-4 minutes on the loaded 2-core machine.
 */
import { createKafka, EventProducer, EventSchemas, ensureTopics, newEvent, startConsumer } from '@cc/bus';
import { createLogger } from '@cc/kit';
import { freshName, startTestIssuer, testInfra, writeBenchResult } from '@cc/testing';
import type { Kafka } from 'kafkajs';
import { loadServiceConfig } from '../src/config';
import type { ActivityItem } from '../src/domain/agent-activity';
import { hourMs } from '../src/domain/time';
import { StatisticsConsumer } from '../src/events/statistics.consumer';
import { startService } from '../src/service';
import { decodeActivityChunk, encodeActivityChunk } from '../src/store/activity-chunk.codec';
import { statisticsModels } from '../src/store/models';
import { StatisticsRepository } from '../src/store/statistics.repository';

const records = Number(process.argv[2] ?? process.env.BENCH_STAT_RECORDS ?? 1_000_000);
const queries = Number(process.argv[3] ?? 10);
const consumeEvents = Number(process.argv[4] ?? 50_000);
const days = 31;
const agents = 500;
const logger = createLogger('bench', 'warn');
const rows: { name: string; value: number; unit: string; note: string }[] = [];
const row = (name: string, value: number, unit: string, note: string) => {
  rows.push({ name, value, unit, note });
  process.stdout.write(`[bench] ${name}: ${value} ${unit} (${note})\n`);
};
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const guid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** The i-th synthetic activity of an hour: presence, workload and interaction segments, spread over the agents. */
function activity(hourStart: number, i: number, perHour: number): ActivityItem {
  const agent = i % agents;
  const start = hourStart + Math.floor((i * hourMs) / perHour);
  const kind = i % 3;
  const base = {
    agentId: guid(agent),
    start,
    end: start + 30_000 + (i % 600) * 1000,
    category: null,
    name: null,
    eligibleForRouting: null,
    status: null,
    reason: null,
    interaction: null,
    channel: null,
    workload: null,
  };
  if (kind === 0) return { ...base, type: 'Presence', category: 'Ready', name: 'Ready', eligibleForRouting: true };
  if (kind === 1) return { ...base, type: 'Workload', workload: { calls: i % 2, semiLive: 0, nonLive: 0 } };
  return {
    ...base,
    type: 'Interaction',
    category: ['Ringing', 'Connected', 'Wrap'][i % 9 < 3 ? 0 : i % 9 < 6 ? 1 : 2] as string,
    status: 'Completed',
    interaction: { guid: guid(1_000_000 + i), medium: 'Phone', mediumManager: 'CC', direction: 'Inbound' },
    channel: { guid: guid(2_000_000 + i) },
  };
}

async function skipToEnd(kafka: Kafka, groupId: string, topics: string[]) {
  const admin = kafka.admin();
  await admin.connect();
  for (const topic of topics) {
    const offsets = await admin.fetchTopicOffsets(topic);
    await admin.setOffsets({
      groupId,
      topic,
      partitions: offsets.map((o) => ({ partition: o.partition, offset: o.high })),
    });
  }
  await admin.disconnect();
}

async function main() {
  const infra = await testInfra();
  const issuer = await startTestIssuer();
  const dbName = freshName('cc_statistics_bench');
  const group = freshName('cc.statistics.bench');
  const kafka = createKafka({ brokers: infra.kafkaBrokers, clientId: 'statistics-bench', logger });
  await ensureTopics(
    kafka,
    ['cc.agent-activity.v1', 'cc.interaction.v1'].map((topic) => ({ topic, numPartitions: 6 })),
  );
  await skipToEnd(kafka, group, ['cc.agent-activity.v1', 'cc.interaction.v1']);
  const config = Object.freeze({
    ...loadServiceConfig({
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: dbName,
      LOG_LEVEL: 'warn',
      KAFKA_GROUP_ID: group,
      ...issuer.env,
    }),
    PORT: 0,
  });
  const service = await startService(config, { exitOnShutdown: false });
  const models = statisticsModels(service.conn);
  try {
    // 1. The store's raw rates, in this run.
    const raw = service.conn.collection('bench_raw');
    const small = 20 * 50;
    let t = Date.now();
    for (let b = 0; b < 20; b++) {
      await raw.insertMany(
        Array.from({ length: 50 }, (_, i) => ({ _id: `r${b}-${i}` as never, n: i, s: 'x'.repeat(200) })),
      );
    }
    row(
      'store insertMany (50 docs of 0.2 KB)',
      Math.round(small / ((Date.now() - t) / 1000)),
      'docs/s',
      'raw driver, same store, same run',
    );

    // 2. Load N records as hour buckets.
    const account = freshName('bench-account');
    const hours = days * 24;
    const perHour = Math.ceil(records / hours);
    const firstHour = Math.floor(Date.parse('2026-01-01T00:00:00Z') / hourMs);
    const now = Date.now();
    let loaded = 0;
    let bucketBytes = 0;
    t = Date.now();
    const batchDocs = 4;
    for (let h = 0; h < hours; h += batchDocs) {
      const docs = [];
      const heads = [];
      for (let k = h; k < Math.min(hours, h + batchDocs); k++) {
        const hour = firstHour + k;
        const items: ActivityItem[] = [];
        const n = Math.min(perHour, records - loaded);
        for (let i = 0; i < n; i++) items.push(activity(hour * hourMs, i, perHour));
        loaded += n;
        // One chunk per hour, as the service's merge leaves an hour (src/store/models.ts ChunkDoc), in its encoding.
        const g = `${account}|${hour}`;
        docs.push({ _id: `${g}|${now * 1000}`, g, v: now * 1000, data: encodeActivityChunk(hour, items, [], now) });
        heads.push({ _id: `${g}|${now * 1000}`, g, d: `${account}|${Math.floor(hour / 24)}`, v: now * 1000, n });
      }
      if (h === 0) bucketBytes = Buffer.byteLength(JSON.stringify(docs[0]));
      await models.ActivityChunk.collection.insertMany(docs as never[], { ordered: false });
      await models.ActivityChunkHead.collection.insertMany(heads as never[], { ordered: false });
      if ((h / batchDocs) % 24 === 0) process.stdout.write(`[bench] loaded ${loaded}/${records}\n`);
    }
    const loadSeconds = (Date.now() - t) / 1000;
    row(
      'load agent-activity records (one account, 31 days)',
      loaded,
      'records',
      `${hours} hour chunks of ${perHour} records (~${Math.round(bucketBytes / 1024)} KB each)`,
    );
    row(
      'load time',
      Math.round(loadSeconds * 10) / 10,
      's',
      `insertMany of ${batchDocs} chunks per call: ${Math.round(loaded / loadSeconds)} records/s`,
    );

    t = Date.now();
    const one = await models.ActivityChunk.collection.find({ g: `${account}|${firstHour + 100}` }).toArray();
    row(
      'store find one hour chunk by its indexed group',
      Date.now() - t,
      'ms',
      `${one.reduce((n, d) => n + decodeActivityChunk(d.data).c.length, 0)} records in it`,
    );

    // 3. 1-day queries through HTTP, limit 5000.
    const token = await issuer.token({ accountId: account, scopes: 'stats' });
    const latencies: number[] = [];
    let total = 0;
    for (let q = 0; q < queries; q++) {
      const day = q % (days - 1);
      const start = new Date((firstHour + day * 24) * hourMs).toISOString();
      const end = new Date((firstHour + (day + 1) * 24) * hourMs).toISOString();
      const started = performance.now();
      const res = await fetch(`${service.url()}/stats/agent-activities?start=${start}&end=${end}&limit=5000`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await res.json()) as { meta: { totalCount: number; count: number } };
      latencies.push(performance.now() - started);
      if (res.status !== 200 || body.meta.count !== Math.min(5000, body.meta.totalCount))
        throw new Error(`unexpected answer ${res.status} ${JSON.stringify(body.meta)}`);
      total = body.meta.totalCount;
    }
    latencies.sort((a, b) => a - b);
    // The same page read in-process (store reads and parsing, no HTTP or JSON answer): where the time goes.
    const inProcess: number[] = [];
    for (let q = 0; q < Math.min(queries, 10); q++) {
      const day = q % (days - 1);
      const started = performance.now();
      await service.repo.activityPage(
        account,
        { start: (firstHour + day * 24) * hourMs, end: (firstHour + (day + 1) * 24) * hourMs, include: 'Started' },
        {},
        1,
        5000,
      );
      inProcess.push(performance.now() - started);
    }
    inProcess.sort((a, b) => a - b);
    row(
      '1-day page read in-process (repository only), limit=5000: p50',
      Math.round(pct(inProcess, 50)),
      'ms',
      `${inProcess.length} reads: the day's chunk heads, then the page's hour chunks`,
    );
    row(
      '1-day agent-activities query, limit=5000: p50',
      Math.round(pct(latencies, 50)),
      'ms',
      `${queries} queries over HTTP, ${total} records in the day, 24 chunk heads and the page's hours read each from the store (no cache: every query is cold)`,
    );
    row(
      '1-day agent-activities query, limit=5000: p99',
      Math.round(pct(latencies, 99)),
      'ms',
      `target ≤ 200 ms; ${loaded} records stored for the account`,
    );

    // 4. Events recorded per second vs a raw kafkajs consumer of the same topic.
    const topic = freshName('bench.agent-activity');
    await ensureTopics(kafka, [{ topic, numPartitions: 6 }]);
    const schemas = new EventSchemas();
    const producer = new EventProducer(kafka, schemas, logger);
    await producer.connect();
    const evAccount = freshName('bench-events');
    const base = Date.parse('2026-02-01T00:00:00Z');
    for (let sent = 0; sent < consumeEvents; sent += 500) {
      const batch = Array.from({ length: Math.min(500, consumeEvents - sent) }, (_, k) => {
        const i = sent + k;
        const agent = i % agents;
        const seq = Math.floor(i / agents) + 1;
        const at = new Date(base + i * 1000).toISOString();
        return newEvent({
          source: '/cc/routing',
          type: 'agent-activity.presence-changed',
          subject: guid(agent),
          accountId: evAccount,
          data: {
            agentId: guid(agent),
            agentUsername: `agent${agent}`,
            occurredAt: at,
            sequence: seq,
            presence: seq % 2 ? 'Ready' : 'Away',
            eligibleForRouting: seq % 2 === 1,
            reason: null,
            previous:
              seq > 1
                ? {
                    presence: seq % 2 ? 'Away' : 'Ready',
                    eligibleForRouting: seq % 2 === 0,
                    reason: null,
                    startedAt: new Date(base + (i - agents) * 1000).toISOString(),
                    durationMs: agents * 1000,
                  }
                : null,
          },
        });
      });
      await producer.publish(topic, batch);
    }

    // Raw kafkajs with the service's fetch settings, parsing each message (the service parses too).
    const { partitionsConsumedConcurrently, maxBytesPerPartition } = StatisticsConsumer.consumerOptions;
    const rawGroup = freshName('bench.raw');
    const rawConsumer = kafka.consumer({ groupId: rawGroup, maxBytesPerPartition });
    await rawConsumer.connect();
    await rawConsumer.subscribe({ topic, fromBeginning: true });
    let rawCount = 0;
    let rawLast = 0;
    let rawDone!: () => void;
    const rawFinished = new Promise<void>((r) => {
      rawDone = r;
    });
    await rawConsumer.run({
      partitionsConsumedConcurrently,
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) JSON.parse(m.value?.toString('utf8') ?? 'null');
        rawCount += batch.messages.length;
        rawLast = Date.now();
        if (rawCount >= consumeEvents) rawDone();
      },
    });
    const rawFirst = Date.now(); // `run` resolves once the group is joined
    const rawCpu0 = process.cpuUsage();
    await rawFinished;
    const rawCpu = process.cpuUsage(rawCpu0);
    await rawConsumer.disconnect();
    const rawRate = Math.round(rawCount / Math.max(0.001, (rawLast - rawFirst) / 1000));

    // Recorded into a database of its own: on a store that scans on `_id` lookups, the loaded records above would
    // make every bucket write pay for the whole collection (measured separately in the run's notes).
    const eventsDb = freshName('cc_statistics_bench_events');
    const eventsConn = service.conn.useDb(eventsDb, { useCache: false });
    const repo = new StatisticsRepository(statisticsModels(eventsConn));
    const recorder = new StatisticsConsumer(repo);
    let handled = 0;
    const statGroup = freshName('bench.stat');
    await ensureTopics(kafka, [{ topic: `${statGroup}.dlq`, numPartitions: 1 }]);
    const statConsumer = await startConsumer({
      kafka,
      groupId: statGroup,
      topics: [topic],
      schemas,
      producer,
      logger,
      handler: async (e, ctx) => {
        handled++;
        await recorder.handle(e, ctx);
      },
      handleEach: (e) => {
        handled++;
        recorder.handleEach(e);
      },
      ...StatisticsConsumer.consumerOptions, // as the service runs it
      flush: recorder.flush,
    });
    const first = Date.now(); // joined
    const cpu0 = process.cpuUsage();
    // BENCH_MARKS: the window's bounds on the clock of a CPU profile (`node --cpu-prof`), to read the profile by.
    if (process.env.BENCH_MARKS) process.stdout.write(`[mark] start ${process.hrtime.bigint() / 1000n}\n`);
    // Done when every offset is committed (each commit follows the write holding its batch).
    const admin = kafka.admin();
    await admin.connect();
    const ends = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, o.high]));
    for (;;) {
      const [t] = await admin.fetchOffsets({ groupId: statGroup, topics: [topic] });
      if ((t?.partitions ?? []).every((p) => p.offset === ends.get(p.partition))) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const last = Date.now();
    const statCpu = process.cpuUsage(cpu0);
    if (process.env.BENCH_MARKS) process.stdout.write(`[mark] end ${process.hrtime.bigint() / 1000n}\n`);
    await admin.disconnect();
    await statConsumer.disconnect();
    await eventsConn.dropDatabase().catch(() => undefined);
    await producer.disconnect();
    const statRate = Math.round(handled / Math.max(0.001, (last - first) / 1000));
    row(
      'raw kafkajs consume (eachBatch, JSON.parse each)',
      rawRate,
      'events/s',
      `${rawCount} agent-activity events, 6 partitions, the service's fetch settings, group joined to last message`,
    );
    row(
      'agent-activity events recorded',
      statRate,
      'events/s',
      `${handled} handled by the service's consumer into an empty database: validation, buffering, pipelined chunk inserts per round, commits after them; group joined to last commit`,
    );
    // CPU per event (the process's user + system time over each window): unlike the rates, hardly moved by the load.
    const perEvent = (cpu: NodeJS.CpuUsage, n: number) =>
      Math.round(((cpu.user + cpu.system) / Math.max(1, n)) * 10) / 10;
    row('raw kafkajs consume: CPU per event', perEvent(rawCpu, rawCount), 'µs', 'process.cpuUsage over its window');
    row(
      'agent-activity events recorded: CPU per event',
      perEvent(statCpu, handled),
      'µs',
      'process.cpuUsage over its window (its writes and commits included)',
    );
    row('recorded vs raw consume', Math.round((statRate / rawRate) * 1000) / 1000, 'ratio', 'target ≥ 0.5');
  } finally {
    await service.conn
      .getClient()
      .db(dbName)
      .dropDatabase()
      .catch(() => undefined);
    await service.stop();
    await issuer.close();
  }
  const num = (name: string) => rows.find((r) => r.name.startsWith(name))?.value ?? Number.NaN;
  const [p50, p99, loadedN] = [
    num('1-day agent-activities query, limit=5000: p50'),
    num('1-day agent-activities query, limit=5000: p99'),
    num('load agent-activity records'),
  ];
  const [recorded, rawRate] = [num('agent-activity events recorded'), num('raw kafkajs consume')];
  writeBenchResult('statistics', { details: rows }, [
    {
      id: 'statistics.query',
      value: `p50/p99 ${p50}/${p99} ms`,
      beside: `${loadedN} records stored for one account, ${queries} 1-day queries, limit=5000`,
      numbers: { p50Ms: p50, p99Ms: p99, stored: loadedN },
    },
    {
      id: 'statistics.consume',
      value: `${recorded} events/s (${(recorded / rawRate).toFixed(2)}× raw)`,
      beside: `raw kafkajs ${rawRate} events/s, ${consumeEvents} events, same topic and run`,
      numbers: {
        eventsPerSecond: recorded,
        rawPerSecond: rawRate,
        ratio: recorded / rawRate,
        cpuPerEventUs: num('agent-activity events recorded: CPU per event'),
        rawCpuPerEventUs: num('raw kafkajs consume: CPU per event'),
      },
    },
  ]);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

/**
 * Bus throughput on the real broker and store: publishes N valid events in batches and consumes
 * them through startConsumer (validation, explicit commits, optional store-backed dedupe).
 * Prints events/s, end-to-end latency p50/p99 and peak RSS; writes bench/results/bus.json.
 * Usage: tsx bench/bus.bench.ts [events=20000] [batch=500]
 */
import {
  type CloudEvent,
  createKafka,
  EventProducer,
  EventSchemas,
  ensureTopics,
  mongoDeduper,
  newEvent,
  startConsumer,
} from '@cc/bus';
import { createLogger } from '@cc/kit';
import { freshName, testInfra, writeBenchResult } from '@cc/testing';
import mongoose from 'mongoose';

const total = Number(process.argv[2] ?? 20000);
const batch = Number(process.argv[3] ?? 500);
const logger = createLogger('bench', 'warn');
const schemas = new EventSchemas({
  'bench.ticked': { type: 'object', required: ['sentAt'], properties: { sentAt: { type: 'number' } } },
});

let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 50);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function run(
  label: string,
  withDedupe: boolean,
  kafka: ReturnType<typeof createKafka>,
  producer: EventProducer,
  conn: mongoose.Connection,
) {
  const topic = freshName('bench');
  const group = freshName('bench-g');
  await ensureTopics(kafka, [
    { topic, numPartitions: 6 },
    { topic: `${group}.dlq`, numPartitions: 1 },
  ]);
  const latencies: number[] = [];
  let done!: () => void;
  const finished = new Promise<void>((r) => {
    done = r;
  });
  const handler = async (e: CloudEvent) => {
    latencies.push(Date.now() - (e.data as { sentAt: number }).sentAt);
    if (latencies.length === total) done();
  };
  const consumer = await startConsumer({
    kafka,
    groupId: group,
    topics: [topic],
    schemas,
    producer,
    handler,
    logger,
    ...(withDedupe ? { deduper: mongoDeduper(conn, group) } : {}),
  });
  const t0 = Date.now();
  for (let sent = 0; sent < total; sent += batch) {
    const events = Array.from({ length: Math.min(batch, total - sent) }, (_, i) =>
      newEvent({
        source: '/cc/bench',
        type: 'bench.ticked',
        subject: `agent-${(sent + i) % 200}`,
        accountId: 'bench',
        data: { sentAt: Date.now() },
      }),
    );
    await producer.publish(topic, events);
    if ((sent / batch) % 10 === 0)
      process.stdout.write(`[bench] ${label}: published ${sent + events.length}/${total}\n`);
  }
  const published = Date.now();
  await finished;
  const seconds = (Date.now() - t0) / 1000;
  await consumer.disconnect();
  latencies.sort((a, b) => a - b);
  const result = {
    label,
    events: total,
    publishPerSecond: Math.round(total / ((published - t0) / 1000)),
    endToEndPerSecond: Math.round(total / seconds),
    latencyMsP50: pct(latencies, 50),
    latencyMsP99: pct(latencies, 99),
  };
  process.stdout.write(
    `[bench] ${label}: ${result.endToEndPerSecond} events/s end-to-end (publish ${result.publishPerSecond}/s), latency p50 ${result.latencyMsP50} ms p99 ${result.latencyMsP99} ms\n`,
  );
  return result;
}

async function main() {
  const infra = await testInfra();
  const kafka = createKafka({ brokers: infra.kafkaBrokers, clientId: 'bench', logger });
  const producer = new EventProducer(kafka, schemas, logger);
  await producer.connect();
  const conn = await mongoose.createConnection(infra.mongoUrl, { dbName: freshName('bench') }).asPromise();
  const results = [
    await run('publish+consume', false, kafka, producer, conn),
    await run('publish+consume+dedupe(store)', true, kafka, producer, conn),
  ];
  clearInterval(sampler);
  await producer.disconnect();
  await conn.dropDatabase().catch(() => undefined);
  await conn.close();
  const out = { bench: 'bus', at: new Date().toISOString(), batch, peakRssMb: Math.round(peakRss / 1048576), results };
  process.stdout.write(`[bench] peak RSS ${out.peakRssMb} MB\n`);
  const [plain, deduped] = results as [(typeof results)[0], (typeof results)[0]];
  writeBenchResult('bus', { batch, peakRssMb: out.peakRssMb, results }, [
    {
      id: 'bus.consume',
      value: `${deduped.endToEndPerSecond} events/s with store dedupe, p50/p99 ${deduped.latencyMsP50}/${deduped.latencyMsP99} ms`,
      beside: `without dedupe ${plain.endToEndPerSecond} events/s (same run, ${total} events)`,
      numbers: { dedupedPerSecond: deduped.endToEndPerSecond, plainPerSecond: plain.endToEndPerSecond },
    },
  ]);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

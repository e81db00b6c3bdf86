// Benchmark: GET /events/stream fan-out. A gateway in this process (fresh database, its own consumer group) with N
// open streams of one account; events published to cc.interaction.v1 at a fixed offered rate carry their publish
// time; each stream records when it received each event. Reports Kafka-publish → SSE-receive latency p50/p99 and the
// delivered events/s over all streams. Never asserts a number.
// Usage: node --import tsx services/gateway/bench/event-stream.bench.ts (KAFKA_BROKERS / MONGO_URL default to the
// local stack). Env: BENCH_STREAMS (20), BENCH_EVENTS (2000), BENCH_RATE (500 events/s offered).
import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { loadConfig } from '@cc/kit';
import { CapturedLogs, dropDatabase, eventually, fmt, percentile, writeBenchResult } from '@cc/testing';
import { Kafka, logLevel } from 'kafkajs';
import { configSpec } from '../src/config';
import { startService } from '../src/service';

const streams = Number(process.env.BENCH_STREAMS ?? 20);
const events = Number(process.env.BENCH_EVENTS ?? 2000);
const rate = Number(process.env.BENCH_RATE ?? 500);
const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const mongoUrl = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/?directConnection=true';

async function main(): Promise<void> {
  const dbName = `gw_bench_sse_${Date.now().toString(36)}`;
  const config = loadConfig(configSpec, {
    KAFKA_BROKERS: brokers,
    MONGO_URL: mongoUrl,
    MONGO_DB: dbName,
    KAFKA_GROUP_ID: `bench-sse-${randomBytes(3).toString('hex')}`,
    CC_ENCRYPTION_KEYS: `b1:${randomBytes(32).toString('base64')}`,
    CC_DEMO_SEED: 'true',
    LOG_LEVEL: 'warn',
  });
  const gw = await startService({ ...config, PORT: 0 }, { logDestination: new CapturedLogs(), exitOnShutdown: false });
  const url = gw.url();
  const kafka = new Kafka({ brokers: brokers.split(','), clientId: 'bench-sse', logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  try {
    await eventually(() => gw.eventStreamJoined(), { timeoutMs: 60_000, what: 'stream consumer joined' });
    const token = await adminToken(url);
    const account = 'demo';
    const latencies: number[] = [];
    let received = 0;
    const runId = randomUUID();
    const closers: (() => void)[] = [];
    for (let i = 0; i < streams; i++) {
      closers.push(
        await openStream(url, token, (data) => {
          const e = JSON.parse(data) as { data?: { run?: string; sentAt?: number } };
          if (e.data?.run !== runId) return; // other suites' demo events on the shared topic
          received += 1;
          latencies.push(Date.now() - (e.data.sentAt ?? 0));
        }),
      );
    }
    const started = Date.now();
    // Offered at a fixed rate in batches of 50 (one produce call each).
    for (let sent = 0; sent < events; sent += 50) {
      const due = started + (sent / rate) * 1000;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const batch = Array.from({ length: Math.min(50, events - sent) }, () => {
        const id = randomUUID();
        return {
          key: `${account}:bench-sse`,
          value: JSON.stringify({
            specversion: '1.0',
            id,
            source: '/cc/bench',
            type: 'interaction.queued',
            time: new Date().toISOString(),
            subject: 'bench-sse',
            accountid: account,
            datacontenttype: 'application/json',
            data: { run: runId, sentAt: Date.now() },
          }),
        };
      });
      await producer.send({ topic: 'cc.interaction.v1', messages: batch });
    }
    await eventually(() => received >= events * streams, {
      timeoutMs: 120_000,
      what: `${events * streams} deliveries`,
    }).catch(() => undefined);
    const seconds = (Date.now() - started) / 1000;
    for (const close of closers) close();
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const perSecond = received / seconds;
    const line = `${fmt(perSecond)} deliveries/s to ${streams} streams, publish → receive p50/p99 ${p50}/${p99} ms`;
    process.stdout.write(
      `[bench] event stream: ${events} events offered at ${rate}/s, ${received}/${events * streams} delivered in ${fmt(seconds)} s: ${line}\n`,
    );
    writeBenchResult(
      'event-stream',
      { streams, events, offeredRate: rate, received, seconds, p50Ms: p50, p99Ms: p99, deliveriesPerSecond: perSecond },
      [
        {
          id: 'gateway.event-stream',
          value: line,
          beside: `${events} events offered at ${rate}/s`,
          numbers: { deliveriesPerSecond: perSecond, p50Ms: p50, p99Ms: p99, streams },
        },
      ],
    );
  } finally {
    try {
      await producer.disconnect();
      await gw.stop();
    } finally {
      await dropDatabase(mongoUrl, dbName);
    }
  }
}

async function adminToken(url: string): Promise<string> {
  const res = await fetch(`${url}/Auth/connect/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from('demo-client:demo-secret-change-me').toString('base64')}`,
    },
    body: 'grant_type=client_credentials&scope=admin',
  });
  const body = (await res.json()) as { access_token: string };
  return body.access_token;
}

/** Opens one stream and calls `onData` with each event's data line; resolves once the stream is open. */
function openStream(url: string, token: string, onData: (data: string) => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/events/stream`, { headers: { authorization: `Bearer ${token}` } });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream: HTTP ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
          buffer = buffer.slice(end + 2);
          if (data) onData(data);
        }
      });
      res.on('error', () => undefined);
      resolve(() => req.destroy());
    });
    req.end();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

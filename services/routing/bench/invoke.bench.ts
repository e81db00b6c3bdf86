/**
 * Routing benchmark: Invoke throughput and latency (1-object and 50-object Invocations) and
 * dispatch-to-offer latency, through a real gateway process in front of a routing service started
 * in-process on the real stack (BENCH_DIRECT=1: the routing service itself), or through a running
 * gateway (BENCH_BASE_URL with BENCH_TOKEN_INVOKE / _ADMIN / _AGENT bearer tokens).
 * Writes bench/results/routing.json and routing.md at the repository root (run by `./cc bench`, or
 * `pnpm --filter @cc/routing bench`).
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '@cc/kit';
import {
  childrenOf,
  dropDatabase,
  freshName,
  machineTicks,
  ownTicks,
  stackPids,
  startGatewayProcess,
  startTestIssuer,
  storePids,
  ticksOf,
  writeBenchResult,
} from '@cc/testing';
import { Kafka, logLevel } from 'kafkajs';
import mongoose from 'mongoose';
import { configSpec } from '../src/config';
import { startService } from '../src/service';

const env = process.env;
const brokers = env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const mongoUrl = env.MONGO_URL ?? 'mongodb://127.0.0.1:27017';
const singleCount = Number(env.BENCH_SINGLE ?? 300);
/**
 * Rounds of `singleCount` requests each 1-object phase whose rate is compared (empty store, 100,000 stored, backlog):
 * the round with the median rate is the phase's figure. One round of ~2.5 s moved by ±20 % between runs of the
 * same code (a burst of the store's own work in it); the median of three does not take one such burst.
 */
const rounds = Math.max(1, Number(env.BENCH_ROUNDS ?? 3));
/**
 * How long the stored phase waits after storing the history: PostgreSQL's autovacuum visits a database once a
 * minute (autovacuum_naptime) and then vacuums and analyzes the 100,000 rows just inserted, a burst of the store's
 * CPU that is the seeding's, not the history's (an account's history grows over months, vacuumed as it grows).
 */
const storedSettleMs = Number(env.BENCH_STORED_SETTLE_MS ?? 65_000);
const batchCount = Number(env.BENCH_BATCHES ?? 20);
const concurrency = Number(env.BENCH_CONCURRENCY ?? 8);
/** 50-object Invocations are ~400 store operations each; fewer at once keeps them inside the gateway's timeout. */
const batchConcurrency = Number(env.BENCH_BATCH_CONCURRENCY ?? 2);
const offerSamples = Number(env.BENCH_OFFERS ?? 600);
/** Dispatches per second of the dispatch → offer phase (the issue's 100/s). */
const offerRate = Number(env.BENCH_OFFER_RATE ?? 100);
/** Release each dispatch → offer sample as soon as its offer is seen (else after the phase). */
const releaseAsSeen = env.BENCH_OFFER_RELEASE === '1';
/**
 * Dispatches of an unmeasured dispatch → offer run before the measured one, the same way (0 skips it). The bench
 * usually starts on a stack just (re)started: Kafka's JVM then spends a large part of a core compiling its hot code
 * (measured: Kafka's CPU in the same phase 46 % right after a restart, 28 %, 17 % and 12 % in the runs after), and
 * routing's own code is not optimized yet either. The row is the suite warm, as it runs. (Releasing each offer as
 * seen in the warm-up doubled its work past what the machine sustains: its queue was still draining when the
 * measured run began.)
 */
const offerWarmup = Number(env.BENCH_OFFER_WARMUP ?? 600);
/** Ready agents of the dispatch → offer phase, sharing room for 1,000 offers (20: 50 non-live each). */
const offerAgents = Math.max(1, Number(env.BENCH_OFFER_AGENTS ?? 20));
/** Interactions stored before the second 1-object phase (0 skips it): history the hot path must not read. */
const storedHistory = Number(env.BENCH_STORED ?? 100_000);
/** Interactions queued (no agent Ready) for the backlog phase (0 skips it). */
const backlogSize = Number(env.BENCH_BACKLOG ?? 5_000);
/** How long the backlog phase measures the suite's CPU at rest. */
const idleWindowMs = Number(env.BENCH_IDLE_MS ?? 30_000);
/** Sequential Invocations whose store commands are counted. */
const profileCount = Number(env.BENCH_PROFILE ?? 20);
/** A folder: each Invoke phase's CPU profile of this process (routing in-process and the client) is written there. */
const cpuProfileDir = env.BENCH_CPU_PROFILE_DIR;

interface Target {
  base: string;
  /** The routing service's own database, when the bench started it (seeding history needs it). */
  dbName?: string;
  tokens: (accountId: string) => Promise<{ invoke: string; admin: string; agent: string }>;
  via: string;
  close(): Promise<void>;
}

async function target(): Promise<Target> {
  if (env.BENCH_BASE_URL) {
    const tokens = {
      invoke: env.BENCH_TOKEN_INVOKE ?? '',
      admin: env.BENCH_TOKEN_ADMIN ?? '',
      agent: env.BENCH_TOKEN_AGENT ?? '',
    };
    return {
      base: env.BENCH_BASE_URL,
      tokens: async () => tokens,
      via: `gateway ${env.BENCH_BASE_URL}`,
      close: async () => undefined,
    };
  }
  const issuer = await startTestIssuer();
  const groupId = freshName('routing_bench');
  await startGroupAtEnd(groupId, 'cc.provider.v1');
  const dbName = freshName('cc_routing_bench');
  const config = loadConfig(configSpec, {
    PORT: '8081',
    LOG_LEVEL: 'warn',
    KAFKA_BROKERS: brokers,
    MONGO_URL: mongoUrl,
    MONGO_DB: dbName,
    KAFKA_GROUP_ID: groupId,
    ...issuer.env,
    // The engine's settings as the environment gives them (e.g. ENGINE_PASS_GAP_MS), to compare runs.
    ...Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('ENGINE_'))),
  });
  const svc = await startService({ ...config, PORT: 0 }, { exitOnShutdown: false });
  // The gateway checks the bench issuer's tokens as an external OIDC issuer's and proxies to routing.
  const gateway = env.BENCH_DIRECT ? undefined : await startGatewayProcess({ ROUTING: svc.url() }, issuer.env);
  return {
    dbName,
    base: gateway?.url ?? svc.url(),
    via: gateway ? 'gateway process → routing in-process' : 'routing in-process (no gateway)',
    tokens: async (accountId) => ({
      invoke: await issuer.token({ accountId, scopes: 'interactions:write' }),
      admin: await issuer.token({ accountId, scopes: 'admin' }),
      agent: await issuer.token({ accountId, scopes: 'agent' }),
    }),
    close: async () => {
      try {
        await gateway?.stop();
        await svc.stop();
        await issuer.close();
      } finally {
        // The run's database (up to 100,000 stored interactions) is not kept: BENCH_KEEP_DB=1 keeps it to look at.
        if (!env.BENCH_KEEP_DB) await dropDatabase(mongoUrl, dbName);
      }
    },
  };
}

/**
 * Commits the bench group's offsets at the topic's end: a fresh group reads cc.provider.v1 from the
 * beginning, and replaying every provider event other runs left on the local broker would compete
 * with the measured requests for the store.
 */
async function startGroupAtEnd(groupId: string, topic: string): Promise<void> {
  const admin = new Kafka({
    brokers: brokers.split(','),
    clientId: 'routing-bench',
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) return;
    const partitions = (await admin.fetchTopicOffsets(topic)).map((o) => ({ partition: o.partition, offset: o.high }));
    await admin.setOffsets({ groupId, topic, partitions });
  } finally {
    await admin.disconnect();
  }
}

/**
 * The load client: plain `node:http` over kept-alive connections. It shares this process (and the machine's two
 * cores) with routing, so it should cost as little as it can: global `fetch` (undici with web streams) was about
 * a sixth of this process's CPU profile at 24 clients, and costs ~3.5× the CPU per request of this client.
 */
const clientAgent = new Agent({ keepAlive: true, maxSockets: 256 });
const clientTlsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 256 });

async function call(base: string, method: string, path: string, token: string, body?: unknown) {
  const payload = body !== undefined ? JSON.stringify(body) : undefined;
  const { status, text } = await new Promise<{ status: number; text: string }>((done, fail) => {
    const tls = base.startsWith('https:');
    const req = (tls ? httpsRequest : httpRequest)(
      `${base}${path}`,
      {
        method,
        agent: tls ? clientTlsAgent : clientAgent,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
  if (status >= 300) throw new Error(`${method} ${path}: ${status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

function stats(latencies: number[], elapsedMs: number, objectsPerRequest: number) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: latencies.length,
    objects: latencies.length * objectsPerRequest,
    requestsPerSecond: Math.round((latencies.length / elapsedMs) * 1000 * 10) / 10,
    objectsPerSecond: Math.round(((latencies.length * objectsPerRequest) / elapsedMs) * 1000 * 10) / 10,
    p50Ms: Math.round(percentile(sorted, 50)),
    p99Ms: Math.round(percentile(sorted, 99)),
    maxMs: Math.round(sorted.at(-1) ?? 0),
  };
}

async function pool(total: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < total) await task(next++);
    }),
  );
}

async function setupAccount(t: Target, base: string, accountId: string) {
  const tokens = await t.tokens(accountId);
  await call(base, 'PUT', '/admin/interaction-plans/Bench%20Plan', tokens.admin, {
    name: 'Bench Plan',
    applets: [{ type: 'Queue', name: 'Bench queue' }],
  });
  await call(base, 'PUT', '/admin/routes/Bench', tokens.admin, { name: 'Bench', interactionPlan: 'Bench Plan' });
  return tokens;
}

async function invokePhase(
  t: Target,
  objects: number,
  count: number,
  width: number,
  accountId = freshName('bench').replace(/_/g, '-'),
  known?: Awaited<ReturnType<typeof setupAccount>>,
  /** Prefix of the request ids: phases on one account need their own (a repeated id is an idempotent replay). */
  prefix = 'r',
) {
  const tokens = known ?? (await setupAccount(t, t.base, accountId));
  const latencies: number[] = [];
  const started = performance.now();
  await pool(count, width, async (i) => {
    const requests = Array.from({ length: objects }, (_, j) => ({
      requestId: `${prefix}-${i}-${j}`,
      externalId: `${prefix}e-${i}-${j}`,
      route: 'Bench',
    }));
    const t0 = performance.now();
    await call(t.base, 'POST', '/interactions/Invoke', tokens.invoke, { requests });
    latencies.push(performance.now() - t0);
  });
  return stats(latencies, performance.now() - started, objects);
}

/** A compared Invoke phase: objects per request, requests per round, requests in flight. */
type Shape = { objects: number; count: number; width: number };
const oneObject: Shape = { objects: 1, count: singleCount, width: concurrency };
const fiftyObjects: Shape = { objects: 50, count: batchCount, width: batchConcurrency };

/**
 * `rounds` runs of a shape (1-object by default) on one account, each after the machine is quiet: the figures of the
 * round with the median rate, the CPU used during that round (not while waiting between rounds), and every round's
 * rate beside them.
 */
async function invokeRounds(
  t: Target,
  label: string,
  accountId = freshName('bench').replace(/_/g, '-'),
  known?: Awaited<ReturnType<typeof setupAccount>>,
  shape: Shape = oneObject,
) {
  const tokens = known ?? (await setupAccount(t, t.base, accountId));
  const runs: (ReturnType<typeof stats> & { cpu: ReturnType<ReturnType<typeof cpuMeter>> })[] = [];
  for (let r = 0; r < rounds; r++) {
    await machineQuiet(`${label}, round ${r + 1}/${rounds}`);
    const meter = cpuMeter();
    const prefix = `${shape.objects === 1 ? 'r' : `r${shape.objects}x`}${r}`;
    const run = await invokePhase(t, shape.objects, shape.count, shape.width, accountId, tokens, prefix);
    runs.push({ ...run, cpu: meter() });
  }
  const byRate = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  const { cpu, ...median } = byRate[Math.floor((byRate.length - 1) / 2)] as (typeof runs)[number];
  return { ...median, roundsRequestsPerSecond: runs.map((r) => r.requestsPerSecond), cpu };
}

/**
 * Waits until the whole machine is quiet (under a quarter of one core busy over two 500 ms samples in a row), at
 * least `minMs` and at most a minute and a half past that: a phase compared with another starts as that one did,
 * not inside the previous phase's aftermath (the store's outbox clears, a checkpoint, autovacuum).
 */
async function machineQuiet(label: string, minMs = 0): Promise<void> {
  const started = Date.now();
  const giveUp = started + minMs + 90_000;
  let calm = 0;
  let lastSay = started;
  let ticks = machineTicks();
  let at = performance.now();
  while (Date.now() < giveUp) {
    await new Promise((r) => setTimeout(r, 500));
    const now = machineTicks();
    const nowAt = performance.now();
    const percent = ((now - ticks) / 100 / ((nowAt - at) / 1000)) * 100;
    ticks = now;
    at = nowAt;
    calm = percent < 25 ? calm + 1 : 0;
    if (calm >= 2 && Date.now() - started >= minMs) break;
    if (Date.now() - lastSay >= 10_000) {
      lastSay = Date.now();
      process.stdout.write(
        `[bench] ${label}: waiting for a quiet machine (${Math.round((Date.now() - started) / 1000)} s, ${Math.round(percent)} % of one core busy)\n`,
      );
    }
  }
}

/**
 * Dispatch → offer at a steady rate (`BENCH_OFFER_RATE` dispatches/s, open loop: a dispatch is sent every
 * 1/rate s whether or not the earlier ones were answered) to `BENCH_OFFER_AGENTS` (20) Ready agents with room for 1,000 offers at
 * once (nonLive capacity 50 each). Each sample is timed from the moment its Invoke was sent to its
 * `interaction.offered` event: the event's `time` (when routing decided the offer) and the moment a Kafka
 * consumer in this process received it (the offer durably written and announced: what a desktop or a
 * provider can see; the row's figure). No desktop polls (polling 10 desktops every 20 ms loaded the store it
 * measures). The offers are released by API after the phase (they would ring out after OFFER_TIMEOUT_MS and
 * count as missed); `BENCH_OFFER_RELEASE=1` releases each one as soon as its offer is seen instead, so the
 * suite also ends 100 interactions/s while it offers.
 */
async function offerPhase(t: Target, samples = offerSamples) {
  const accountId = freshName('bench').replace(/_/g, '-');
  const tokens = await setupAccount(t, t.base, accountId);
  const agents: string[] = [];
  for (let i = 0; i < offerAgents; i++) {
    const a = await call(t.base, 'POST', '/admin/agents', tokens.admin, {
      username: `bench-${i}`,
      capacity: { calls: 1, semiLive: 1, nonLive: Math.ceil(1000 / offerAgents) },
    });
    await call(t.base, 'PUT', `/agent-desktop/agents/${a.agentId}/presence`, tokens.agent, { presence: 'Ready' });
    agents.push(a.agentId);
  }
  const sentAt = new Map<string, number>();
  const decided: number[] = [];
  const received: number[] = [];
  const invokeMs: number[] = [];
  const releases: Promise<unknown>[] = [];
  let releaseFailures = 0;
  /** Offer events that arrived before their Invoke's answer named the interaction. */
  const early = new Map<string, { time: number; at: number }>();
  const externalOf = new Map<string, string>();
  const measure = (interactionId: string, time: number, at: number) => {
    const sent = sentAt.get(interactionId);
    if (sent === undefined) return;
    sentAt.delete(interactionId);
    decided.push(time - sent);
    received.push(at - sent);
    if (releaseAsSeen) release(interactionId);
  };
  const release = (interactionId: string) => {
    const done = call(t.base, 'POST', '/interactions/Invoke', tokens.invoke, {
      requests: [{ action: 'release', externalId: externalOf.get(interactionId) }],
    }).catch(() => releaseFailures++);
    releases.push(done);
    return done;
  };
  const consumer = await offerConsumer(({ subject, time, at }) => {
    if (sentAt.has(subject)) measure(subject, time, at);
    else early.set(subject, { time, at });
  });
  const meter = cpuMeter();
  const started = performance.now();
  const gapMs = 1000 / offerRate;
  const invokes: Promise<void>[] = [];
  for (let i = 0; i < samples; i++) {
    const due = started + i * gapMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const externalId = `bench-offer-${i}`;
    const sent = Date.now();
    invokes.push(
      call(t.base, 'POST', '/interactions/Invoke', tokens.invoke, {
        requests: [{ route: 'Bench', externalId, routingdata: { interactiontype: 'nonlive' } }],
      }).then((res) => {
        invokeMs.push(Date.now() - sent);
        const interactionId = res.results[0].interactionId as string;
        externalOf.set(interactionId, externalId);
        sentAt.set(interactionId, sent);
        const seen = early.get(interactionId);
        if (seen) {
          early.delete(interactionId);
          measure(interactionId, seen.time, seen.at);
        }
      }),
    );
  }
  await Promise.all(invokes);
  const sendSeconds = (performance.now() - started) / 1000;
  const giveUpAt = Date.now() + 30_000;
  while (sentAt.size && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 50));
  const missed = sentAt.size;
  // From the first dispatch until every offer was seen (or given up on): the work the row's latency includes.
  const cpu = meter();
  if (!releaseAsSeen) {
    const ids = [...externalOf.keys()];
    await pool(ids.length, 8, async (i) => void (await release(ids[i] as string)));
  }
  await Promise.all(releases);
  await consumer.stop();
  const sortedDecided = [...decided].sort((a, b) => a - b);
  const sortedReceived = [...received].sort((a, b) => a - b);
  const sortedInvoke = [...invokeMs].sort((a, b) => a - b);
  return {
    samples: received.length,
    dispatchesPerSecond: Math.round((samples / sendSeconds) * 10) / 10,
    missedAfter30s: missed,
    releaseFailures,
    p50Ms: percentile(sortedReceived, 50),
    p99Ms: percentile(sortedReceived, 99),
    maxMs: sortedReceived.at(-1) ?? 0,
    decidedP50Ms: percentile(sortedDecided, 50),
    decidedP99Ms: percentile(sortedDecided, 99),
    invokeP50Ms: percentile(sortedInvoke, 50),
    invokeP99Ms: percentile(sortedInvoke, 99),
    cpu,
  };
}

/**
 * Worker thread of {@link offerConsumer} (plain CommonJS, evaluated): a Kafka consumer of `cc.interaction.v1` that
 * posts each `interaction.offered` event's subject, time and the moment it was received.
 */
const offerConsumerCode = `
const { parentPort, workerData } = require('node:worker_threads');
const { Kafka, logLevel } = require(workerData.kafkajs);
const kafka = new Kafka({ brokers: workerData.brokers, clientId: 'routing-bench-offers', logLevel: logLevel.NOTHING });
const consumer = kafka.consumer({ groupId: workerData.groupId, maxWaitTimeInMs: 50 });
consumer.on(consumer.events.GROUP_JOIN, () => parentPort.postMessage({ joined: true }));
parentPort.on('message', (m) => {
  if (m === 'stop') consumer.disconnect().finally(() => parentPort.postMessage({ stopped: true }));
});
(async () => {
  await consumer.connect();
  await consumer.subscribe({ topic: 'cc.interaction.v1', fromBeginning: false });
  await consumer.run({
    partitionsConsumedConcurrently: 8,
    eachMessage: async ({ message }) => {
      const at = Date.now();
      const text = message.value ? message.value.toString() : '';
      if (!text.includes('"interaction.offered"')) return;
      const e = JSON.parse(text);
      if (e.type === 'interaction.offered') parentPort.postMessage({ subject: e.subject, time: Date.parse(e.time), at });
    },
  });
})().catch((err) => parentPort.postMessage({ error: String((err && err.stack) || err) }));
`;

/**
 * The dispatch → offer phase's Kafka consumer, in a worker thread: a desktop or provider is a client of its own, and
 * on this process's event loop (routing and the load client, 92-98 % busy) a received offer waited for the loop
 * before it was timed. Resolves once the consumer joined its group (it reads from the end of the topic).
 */
async function offerConsumer(
  onOffer: (o: { subject: string; time: number; at: number }) => void,
): Promise<{ stop(): Promise<void> }> {
  const worker = new Worker(offerConsumerCode, {
    eval: true,
    workerData: {
      brokers: brokers.split(','),
      groupId: freshName('routing-bench-offers'),
      kafkajs: require.resolve('kafkajs'),
    },
  });
  let stopped: () => void = () => undefined;
  await new Promise<void>((resolve, reject) => {
    worker.on('error', reject);
    worker.on(
      'message',
      (m: { joined?: true; stopped?: true; error?: string; subject: string; time: number; at: number }) => {
        if (m.joined) resolve();
        else if (m.stopped) stopped();
        else if (m.error) reject(new Error(`offer consumer: ${m.error}`));
        else onOffer(m);
      },
    );
  });
  return {
    async stop() {
      const done = new Promise<void>((r) => {
        stopped = r;
      });
      worker.postMessage('stop');
      await done;
      await worker.terminate();
    },
  };
}

/**
 * Counts the store commands routing sends (mongoose's debug hook sees every model and `Model.collection`
 * call of the in-process service; driver heartbeats are not commands of ours), by collection and method.
 */
/**
 * `BENCH_WHO=<collection>.<method>[,...]` (e.g. `interactions.findOne`): which of routing's code paths sent that
 * command how often during the counted phases, printed at exit (the three innermost routing frames).
 */
const who = new Map<string, number>();
const whoKinds = new Set((env.BENCH_WHO ?? '').split(',').filter(Boolean));
process.on('exit', () => {
  for (const [key, n] of [...who].sort((a, b) => b[1] - a[1]).slice(0, 12 * whoKinds.size)) {
    const [kind, frames] = key.split('\u001f');
    process.stderr.write(`[bench] ${kind} x ${n}: ${frames || '(no routing frame: the bus or the driver)'}\n`);
  }
});

function commandCounter() {
  let total = 0;
  let inFlight = 0;
  const byKind = new Map<string, number>();
  // Commands still running count too: a command sent is not one done, and a bulk write can run for seconds.
  const out = () => {
    inFlight++;
  };
  const back = () => {
    inFlight = Math.max(0, inFlight - 1);
  };
  // The in-process service's connections (the default one, never opened, has no client).
  const clients = mongoose.connections.flatMap((c) => (c.readyState === 1 ? [c.getClient()] : []));
  for (const client of clients) client.on('connectionCheckedOut', out).on('connectionCheckedIn', back);
  const previous = mongoose.get('debug');
  mongoose.set('debug', (collection: string, method: string) => {
    total++;
    const k = `${collection}.${method}`;
    byKind.set(k, (byKind.get(k) ?? 0) + 1);
    if (whoKinds.has(k)) {
      const frames = (new Error().stack ?? '')
        .split('\n')
        .filter((l) => l.includes('/services/routing/src/'))
        .slice(0, 3)
        .map((l) => l.trim().replace(/\(.*\/src\//, '('))
        .join(' < ');
      const key = `${k}\u001f${frames}`;
      who.set(key, (who.get(key) ?? 0) + 1);
    }
  });
  return {
    get total() {
      return total;
    },
    /** Store connections of this process checked out now: commands sent and not yet answered. */
    get inFlight() {
      return inFlight;
    },
    snapshot: () => new Map(byKind),
    stop: () => {
      mongoose.set('debug', previous);
      for (const client of clients) client.off('connectionCheckedOut', out).off('connectionCheckedIn', back);
    },
  };
}

type Counter = ReturnType<typeof commandCounter>;

/**
 * Store commands routing sent during a load phase (requests in flight together, so group commits and passes
 * are shared): a function that, called at the phase's end with its request count, describes them per request.
 */
function loadCommands(
  counter: Counter,
): (requests: number) => { total: number; perRequest: number; byCommand: Record<string, number> } {
  const before = counter.snapshot();
  const total = counter.total;
  return (requests) => {
    const delta = [...counter.snapshot()]
      .map(([k, n]) => [k, n - (before.get(k) ?? 0)] as const)
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1]);
    const sent = counter.total - total;
    return { total: sent, perRequest: Math.round((sent / requests) * 100) / 100, byCommand: Object.fromEntries(delta) };
  };
}

/**
 * Documents routing's `find`s returned from `interactions` and `agents` (what the store converts for a routing
 * pass): a global mongoose plugin, registered before the in-process service compiles its models.
 */
let docsRead = 0;
mongoose.plugin((schema) => {
  schema.post('find', function (this: { model?: { collection?: { name?: string } } }, res: unknown) {
    const name = this.model?.collection?.name;
    if (Array.isArray(res) && (name === 'interactions' || name === 'agents')) docsRead += res.length;
  });
});

/**
 * Waits until routing sent no store command and had none running for `quietMs` (its pass and outbox clears are
 * done, and the store has answered them), or the deadline.
 */
async function settle(counter: Counter, quietMs: number, deadlineMs: number): Promise<void> {
  const giveUp = Date.now() + deadlineMs;
  let last = counter.total;
  let since = Date.now();
  while (Date.now() < giveUp) {
    await new Promise((r) => setTimeout(r, 50));
    if (counter.total !== last || counter.inFlight > 0) {
      last = counter.total;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return;
  }
}

/**
 * Store commands of one Invocation, sequentially (nothing else in flight): those sent before its answer,
 * and everything it caused until routing falls quiet (the engine pass, the outbox clear, the wake).
 */
async function profilePhase(t: Target, counter: Counter, objects: number, count: number) {
  const accountId = freshName('bench').replace(/_/g, '-');
  const tokens = await setupAccount(t, t.base, accountId);
  const inRequest: number[] = [];
  const caused: number[] = [];
  const docs: number[] = [];
  const kinds = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    await settle(counter, 300, 5_000);
    const before = counter.total;
    const docsBefore = docsRead;
    const kindsBefore = counter.snapshot();
    const requests = Array.from({ length: objects }, (_, j) => ({
      requestId: `p-${i}-${j}`,
      externalId: `pe-${i}-${j}`,
      route: 'Bench',
    }));
    await call(t.base, 'POST', '/interactions/Invoke', tokens.invoke, { requests });
    inRequest.push(counter.total - before);
    await settle(counter, 300, 5_000);
    caused.push(counter.total - before);
    docs.push(docsRead - docsBefore);
    if (i === count - 1)
      for (const [k, n] of counter.snapshot()) {
        const d = n - (kindsBefore.get(k) ?? 0);
        if (d) kinds.set(k, d);
      }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  return {
    objects,
    samples: count,
    inRequestMedian: median(inRequest),
    inRequestMax: Math.max(...inRequest),
    totalMedian: median(caused),
    totalMax: Math.max(...caused),
    /** Interaction and agent documents the store returned for the Invocation (its routing pass) and the last one. */
    docsReadMedian: median(docs),
    docsReadLast: docs.at(-1) ?? 0,
    lastByCommand: Object.fromEntries([...kinds].sort((a, b) => b[1] - a[1])),
  };
}

/**
 * CPU used meanwhile, in % of one core: this process (routing in-process and the bench client), its
 * children (the gateway), the store's processes, Kafka's, and the whole machine (every process, every core: 200 % is
 * all of two cores). Beside them, how much of the time this process's event loop was busy: near 100 % while
 * the process used much less CPU means it waited for a core, not for the store.
 */
function cpuMeter() {
  const store = storePids();
  const kafka = stackPids(['kafka/kafka.pid']);
  const read = () => ({
    routing: ownTicks(process.pid),
    gateway: childrenOf(process.pid).reduce((a, c) => a + ticksOf(c), 0),
    store: store.reduce((a, p) => a + ticksOf(p), 0),
    kafka: kafka.reduce((a, p) => a + ticksOf(p), 0),
    machine: machineTicks(),
    at: performance.now(),
  });
  const start = read();
  const elu = performance.eventLoopUtilization();
  return () => {
    const end = read();
    const loop = performance.eventLoopUtilization(elu);
    const seconds = (end.at - start.at) / 1000;
    const pct = (ticks: number) => Math.round((ticks / 100 / seconds) * 1000) / 10;
    return {
      routingAndClientPercent: pct(end.routing - start.routing),
      routingAndClientEventLoopBusyPercent: Math.round(loop.utilization * 1000) / 10,
      gatewayPercent: pct(end.gateway - start.gateway),
      storePercent: store.length ? pct(end.store - start.store) : null,
      kafkaPercent: kafka.length ? pct(end.kafka - start.kafka) : null,
      machinePercent: pct(end.machine - start.machine),
    };
  };
}

/**
 * A contact center at peak: `backlogSize` interactions queued and no agent Ready. Measures, over
 * `idleWindowMs` with no request in flight, the CPU of routing and the gateway (this process and its
 * children) and the store's processes (shared with whatever else runs on the machine), and the store
 * commands routing sent; then the 1-object Invoke rate of that account.
 */
async function backlogPhase(t: Target, counter: Counter) {
  const accountId = freshName('bench').replace(/_/g, '-');
  const tokens = await setupAccount(t, t.base, accountId);
  const fill = performance.now();
  await pool(Math.ceil(backlogSize / 50), batchConcurrency, async (i) => {
    const n = Math.min(50, backlogSize - i * 50);
    const requests = Array.from({ length: n }, (_, j) => ({
      requestId: `b-${i}-${j}`,
      externalId: `be-${i}-${j}`,
      route: 'Bench',
    }));
    await call(t.base, 'POST', '/interactions/Invoke', tokens.invoke, { requests });
  });
  const fillSeconds = Math.round((performance.now() - fill) / 100) / 10;
  // Let the passes the fill woke finish (they record one decision per interaction), then measure at rest.
  await settle(counter, 2_000, 120_000);
  const hz = 100; // USER_HZ on Linux
  const store = storePids();
  const commandsBefore = counter.total;
  const docsAtRest = docsRead;
  const restCommands = loadCommands(counter);
  const own0 = ticksOf(process.pid);
  const store0 = store.reduce((a, p) => a + ticksOf(p), 0);
  const t0 = performance.now();
  await profiled('backlog-idle', () => new Promise((r) => setTimeout(r, idleWindowMs)));
  const seconds = (performance.now() - t0) / 1000;
  const pct = (ticks: number) => Math.round((ticks / hz / seconds) * 100 * 10) / 10;
  const idle = {
    queued: backlogSize,
    fillSeconds,
    windowSeconds: Math.round(seconds),
    routingAndGatewayCpuPercent: pct(ticksOf(process.pid) - own0),
    storeCpuPercent: store.length ? pct(store.reduce((a, p) => a + ticksOf(p), 0) - store0) : null,
    storeCommandsFromRouting: counter.total - commandsBefore,
    // A lease owner reads a held account whole once a lease length after taking it over, then every
    // ENGINE_RELOAD_MS (its safety reload): when that falls in the window, this is the backlog's size.
    docsReadFromStore: docsRead - docsAtRest,
    storeCommandsByKind: restCommands(1).byCommand,
  };
  process.stdout.write(
    `[bench] backlog at rest ${JSON.stringify(idle)}\n[bench] Invoke 1 object, ${rounds} x ${singleCount}, with ${backlogSize} queued\n`,
  );
  const docsBefore = docsRead;
  const phaseCommands = loadCommands(counter);
  const { cpu, ...invoke } = await profiled('invoke-backlog', () => invokeRounds(t, 'backlog', accountId, tokens));
  process.stdout.write(
    `[bench] CPU during the backlog phase ${JSON.stringify(cpu)}\n[bench] store commands in the backlog phase ${JSON.stringify(phaseCommands(singleCount * rounds))}\n`,
  );
  // Interaction and agent documents the store returned per Invocation while the backlog was queued.
  const docsReadPerInvoke = Math.round(((docsRead - docsBefore) / (singleCount * rounds)) * 10) / 10;
  // The queue is released (as a client would end its calls): the fill's interactions and the rounds'. A release
  // wakes no pass (nothing is left to route) and ended interactions leave the live collection in a pass, so one
  // more Invoke wakes the account; the later phases then run without this account's rows in the live collection.
  const externalIds = [
    ...Array.from({ length: backlogSize }, (_, k) => `be-${Math.floor(k / 50)}-${k % 50}`),
    ...Array.from({ length: rounds * singleCount }, (_, k) => `r${Math.floor(k / singleCount)}e-${k % singleCount}-0`),
  ];
  let released = 0;
  await pool(Math.ceil(externalIds.length / 50), batchConcurrency, async (i) => {
    const requests = externalIds.slice(i * 50, i * 50 + 50).map((externalId) => ({ action: 'release', externalId }));
    const res = await call(t.base, 'POST', '/interactions/Invoke', tokens.invoke, { requests });
    released += (res.results as { outcome?: string }[]).filter((r) => r.outcome === 'released').length;
  });
  if (released !== externalIds.length)
    throw new Error(`backlog: ${released} of ${externalIds.length} queued interactions answered released`);
  await call(t.base, 'POST', '/interactions/Invoke', tokens.invoke, {
    requests: [{ requestId: 'backlog-wake', externalId: 'backlog-wake', route: 'Bench' }],
  });
  process.stdout.write(`[bench] released the ${released} queued interactions; waiting for their archiving\n`);
  await settle(counter, 2_000, 180_000);
  return { idle, invoke: { ...invoke, docsReadPerInvoke } };
}

/**
 * Stores `total` interactions of history in routing's database for `accountId`, as a busy account leaves them:
 * ended interactions in the archive and their request-log entries, cloned from the documents the empty-store
 * phase wrote (the real shapes, indexes as the service made them). insertMany in chunks of 50 (the store stalls
 * on larger bulks), a few at a time.
 */
async function seedHistory(dbName: string, accountId: string, total: number): Promise<number> {
  const conn = await mongoose.createConnection(mongoUrl, { dbName }).asPromise();
  try {
    const interaction = await conn.collection('interactions').findOne({ accountId });
    const request = await conn.collection('invoke_requests').findOne({ accountId });
    if (!interaction || !request) throw new Error('no interaction of the empty-store phase to clone');
    const { outbox: _o, ...shape } = interaction as Record<string, unknown>;
    const now = Date.now();
    const started = performance.now();
    let done = 0;
    await pool(Math.ceil(total / 50), 4, async (chunk) => {
      const n = Math.min(50, total - chunk * 50);
      const ids = Array.from({ length: n }, (_, k) => `hist-${chunk * 50 + k}`);
      await conn.collection('interaction_archive').insertMany(
        ids.map((id) => ({
          ...shape,
          _id: `${accountId}:${id}` as never,
          requestId: id,
          externalId: `x-${id}`,
          liveKey: null,
          state: 'released',
          endedAt: now,
        })),
      );
      await conn
        .collection('invoke_requests')
        .insertMany(
          ids.map((id) => ({ ...request, _id: `${accountId}:${id}` as never, requestId: id, externalId: `x-${id}` })),
        );
      done += n;
      if (done % 10_000 === 0) process.stdout.write(`[bench] stored ${done}/${total} interactions of history\n`);
    });
    return Math.round((total / (performance.now() - started)) * 1000);
  } finally {
    await conn.close();
  }
}

/** The store's own single-document insert rate in this run, to judge store-bound numbers against. */
async function storeRate(): Promise<number> {
  const conn = await mongoose.createConnection(mongoUrl, { dbName: freshName('cc_routing_bench_raw') }).asPromise();
  const coll = conn.collection('raw');
  const n = 200;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await coll.insertOne({ i, payload: 'x'.repeat(500) });
  const rate = Math.round((n / (performance.now() - t0)) * 1000);
  await conn.dropDatabase();
  await conn.close();
  return rate;
}

/** Runs a phase under the V8 CPU profiler when BENCH_CPU_PROFILE_DIR is set (`<name>.cpuprofile` there). */
async function profiled<T>(name: string, phase: () => Promise<T>): Promise<T> {
  if (!cpuProfileDir) return phase();
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await phase();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(cpuProfileDir, { recursive: true });
    writeFileSync(resolve(cpuProfileDir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

async function main() {
  const t = await target();
  try {
    const rawInsertsPerSecond = await storeRate();
    // Dispatch-to-offer first: routing passes scan an account's live interactions, and on the local
    // store (no secondary indexes) the queues the Invoke phases leave behind would slow every pass.
    process.stdout.write(
      `[bench] routing via ${t.via}: store ${rawInsertsPerSecond} raw inserts/s; dispatch to offer x ${offerSamples}\n`,
    );
    let warmup: Awaited<ReturnType<typeof offerPhase>> | null = null;
    if (offerWarmup > 0) {
      process.stdout.write(`[bench] warm-up: dispatch to offer x ${offerWarmup} (not measured)\n`);
      const warmCounter = t.dbName ? commandCounter() : undefined;
      warmup = await offerPhase(t, offerWarmup);
      // Its ended interactions leave for the archive beside the passes: the measured run starts once that is done.
      if (warmCounter) {
        await settle(warmCounter, 1_000, 30_000);
        warmCounter.stop();
      }
      process.stdout.write(`[bench] warm-up ${JSON.stringify(warmup)}\n`);
    }
    const offerCounter = t.dbName ? commandCounter() : undefined;
    const { cpu: offerCpu, ...dispatchToOffer } = await profiled('offers', () => offerPhase(t));
    process.stdout.write(`[bench] CPU during the dispatch → offer phase ${JSON.stringify(offerCpu)}\n`);
    if (offerCounter) {
      process.stdout.write(
        `[bench] store commands in the dispatch → offer phase: ${offerCounter.total} (${Math.round((offerCounter.total / offerSamples) * 10) / 10} per sample) ${JSON.stringify(Object.fromEntries([...offerCounter.snapshot()].sort((a, b) => b[1] - a[1])))}\n`,
      );
      offerCounter.stop();
    }
    // Store commands per Invocation (in-process routing only: the hook sees this process's store calls).
    const counter = t.dbName ? commandCounter() : undefined;
    const commands = counter
      ? {
          single: await profilePhase(t, counter, 1, profileCount),
          fifty: await profilePhase(t, counter, 50, Math.max(3, Math.round(profileCount / 4))),
        }
      : null;
    if (commands) process.stdout.write(`[bench] store commands per Invoke ${JSON.stringify(commands)}\n`);
    process.stdout.write(
      `[bench] ${JSON.stringify(dispatchToOffer)}\n[bench] Invoke 1 object, ${rounds} x ${singleCount}\n`,
    );
    // Each load phase's commands start once the previous work is done (its passes and outbox clears).
    if (counter) await settle(counter, 300, 5_000);
    const phaseCommands = counter ? loadCommands(counter) : undefined;
    const { cpu: singleCpu, ...single } = await profiled('invoke-1', () => invokeRounds(t, 'empty store'));
    process.stdout.write(`[bench] CPU during the 1-object phase ${JSON.stringify(singleCpu)}\n`);
    const singleCommands = phaseCommands?.(singleCount * rounds);
    if (singleCommands)
      process.stdout.write(`[bench] store commands in the 1-object phase ${JSON.stringify(singleCommands)}\n`);
    process.stdout.write(`[bench] ${JSON.stringify(single)}\n[bench] Invoke 50 objects, ${rounds} x ${batchCount}\n`);
    if (counter) await settle(counter, 300, 5_000);
    const phaseCommands50 = counter ? loadCommands(counter) : undefined;
    const { cpu: batch50Cpu, ...batch50 } = await profiled('invoke-50', () =>
      invokeRounds(t, 'empty store, 50 objects', undefined, undefined, fiftyObjects),
    );
    process.stdout.write(`[bench] CPU during the 50-object phase ${JSON.stringify(batch50Cpu)}\n`);
    const batch50Commands = phaseCommands50?.(batchCount * rounds);
    if (batch50Commands)
      process.stdout.write(`[bench] store commands in the 50-object phase ${JSON.stringify(batch50Commands)}\n`);
    process.stdout.write(`[bench] ${JSON.stringify(batch50)}\n`);
    // The backlog before the stored history: its ratio compares a queue of `backlogSize` with an empty one, all
    // else as in the empty-store phase (after the seed it measured the 100,000 stored rows too: 0.63× in one run).
    const backlog = counter && backlogSize > 0 ? await backlogPhase(t, counter) : null;
    if (backlog) process.stdout.write(`[bench] ${JSON.stringify(backlog.invoke)}\n`);
    // The same 1-object and 50-object phases again, for an account whose database now holds `storedHistory`
    // interactions.
    let stored:
      | (Omit<Awaited<ReturnType<typeof invokeRounds>>, 'cpu'> & {
          storedInteractions: number;
          seededPerSecond: number;
        })
      | null = null;
    let stored50: Omit<Awaited<ReturnType<typeof invokeRounds>>, 'cpu'> | null = null;
    if (storedHistory > 0 && t.dbName) {
      const accountId = freshName('bench').replace(/_/g, '-');
      await invokePhase(t, 1, 5, 1, accountId, undefined, 'seed'); // the account, and documents to clone
      process.stdout.write(`[bench] storing ${storedHistory} interactions of history\n`);
      const seededPerSecond = await seedHistory(t.dbName, accountId, storedHistory);
      process.stdout.write(
        `[bench] Invoke 1 object, ${rounds} x ${singleCount}, with ${storedHistory} stored (after ${storedSettleMs / 1000} s for the store's autovacuum)\n`,
      );
      await machineQuiet('stored history', storedSettleMs);
      const { cpu: _cpu, ...run } = await invokeRounds(t, 'stored history', accountId);
      stored = { ...run, storedInteractions: storedHistory, seededPerSecond };
      process.stdout.write(
        `[bench] ${JSON.stringify(stored)}\n[bench] Invoke 50 objects, ${rounds} x ${batchCount}, with ${storedHistory} stored\n`,
      );
      const { cpu: _cpu50, ...run50 } = await invokeRounds(
        t,
        'stored history, 50 objects',
        accountId,
        undefined,
        fiftyObjects,
      );
      stored50 = run50;
      process.stdout.write(`[bench] ${JSON.stringify(stored50)}\n`);
    }
    counter?.stop();
    const result = {
      at: new Date().toISOString(),
      via: t.via,
      machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
      concurrency: { singleObject: concurrency, fiftyObjects: batchConcurrency },
      store: { rawInsertsPerSecond },
      invokeSingleObject: single,
      invokeSingleObjectCpu: singleCpu,
      invoke50Objects: batch50,
      invoke50ObjectsCpu: batch50Cpu,
      // What routing sent while the requests were in flight together (group commits and passes shared).
      invokeSingleObjectStoreCommands: singleCommands ?? null,
      invoke50ObjectsStoreCommands: batch50Commands ?? null,
      invokeSingleObjectStored: stored,
      invoke50ObjectsStored: stored50,
      dispatchToOffer,
      dispatchToOfferCpu: offerCpu,
      dispatchToOfferWarmup: warmup,
      storeCommandsPerInvoke: commands,
      backlog,
    };
    const dir = resolve(__dirname, '../../../bench/results');
    mkdirSync(dir, { recursive: true });
    const { at: _at, ...details } = result;
    const perObject = (r: ReturnType<typeof stats>) =>
      `${r.requestsPerSecond} req/s, ${r.objectsPerSecond} objects/s, p50/p99 ${r.p50Ms}/${r.p99Ms} ms`;
    const storeBeside = `store raw inserts ${rawInsertsPerSecond}/s (same run)`;
    // A row's numbers are numbers: each round's rate is in its `beside` text and in the details.
    const figures = <T extends { roundsRequestsPerSecond: number[] }>({ roundsRequestsPerSecond: _, ...rest }: T) =>
      rest;
    const ofRounds = (r: { roundsRequestsPerSecond: number[] }, count = singleCount) =>
      `the median of ${rounds} rounds of ${count} (${r.roundsRequestsPerSecond.join(', ')} req/s)`;
    const times = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    writeBenchResult('routing', details, [
      {
        id: 'invoke.1',
        value: perObject(single),
        beside: `${ofRounds(single)}; ${storeBeside}`,
        numbers: { ...figures(single), rawInsertsPerSecond },
      },
      {
        id: 'invoke.50',
        value: perObject(batch50),
        beside: `${ofRounds(batch50, batchCount)}; ${storeBeside}`,
        numbers: { ...figures(batch50), rawInsertsPerSecond },
      },
      ...(stored
        ? [
            {
              id: 'invoke.stored',
              value: `${stored.requestsPerSecond} req/s, p50/p99 ${stored.p50Ms}/${stored.p99Ms} ms with ${stored.storedInteractions} stored = ${times(stored.requestsPerSecond, single.requestsPerSecond)} × empty`,
              beside: `empty store ${single.requestsPerSecond} req/s (same run; each ${ofRounds(stored)}, after ${storedSettleMs / 1000} s for the store's autovacuum); ${storeBeside}`,
              numbers: { ...figures(stored), emptyRequestsPerSecond: single.requestsPerSecond, rawInsertsPerSecond },
            },
          ]
        : []),
      ...(stored50
        ? [
            {
              id: 'invoke.stored.50',
              value: `${stored50.objectsPerSecond} objects/s, p50/p99 ${stored50.p50Ms}/${stored50.p99Ms} ms with ${storedHistory} stored = ${times(stored50.objectsPerSecond, batch50.objectsPerSecond)} × empty`,
              beside: `empty store ${batch50.objectsPerSecond} objects/s (same run; each ${ofRounds(stored50, batchCount)}); ${storeBeside}`,
              numbers: {
                ...figures(stored50),
                emptyObjectsPerSecond: batch50.objectsPerSecond,
                storedInteractions: storedHistory,
                rawInsertsPerSecond,
              },
            },
          ]
        : []),
      ...(commands
        ? [
            {
              id: 'invoke.commands',
              value: `1-object: ${commands.single.inRequestMedian} in the request, ${commands.single.totalMedian} in all; 50-object: ${commands.fifty.inRequestMedian} in the request, ${commands.fifty.totalMedian} in all (medians)`,
              beside: `max ${commands.single.inRequestMax}/${commands.single.totalMax} and ${commands.fifty.inRequestMax}/${commands.fifty.totalMax}; sequential Invocations, nothing else in flight; under load ${singleCommands?.perRequest ?? '?'} per 1-object request (c=${concurrency}), ${batch50Commands?.perRequest ?? '?'} per 50-object request (c=${batchConcurrency})`,
              numbers: {
                singleUnderLoad: singleCommands?.perRequest ?? null,
                fiftyUnderLoad: batch50Commands?.perRequest ?? null,
                singleInRequest: commands.single.inRequestMedian,
                singleTotal: commands.single.totalMedian,
                fiftyInRequest: commands.fifty.inRequestMedian,
                fiftyTotal: commands.fifty.totalMedian,
              },
            },
          ]
        : []),
      ...(backlog
        ? [
            {
              id: 'invoke.backlog.idle',
              value: `routing + gateway ${backlog.idle.routingAndGatewayCpuPercent} % of one core over ${backlog.idle.windowSeconds} s with ${backlog.idle.queued} queued; ${backlog.idle.storeCommandsFromRouting} store commands from routing`,
              beside: `store processes ${backlog.idle.storeCpuPercent ?? 'n/a'} % (shared with everything else on the machine)`,
              numbers: {
                queued: backlog.idle.queued,
                windowSeconds: backlog.idle.windowSeconds,
                routingAndGatewayCpuPercent: backlog.idle.routingAndGatewayCpuPercent,
                storeCommandsFromRouting: backlog.idle.storeCommandsFromRouting,
                ...(backlog.idle.storeCpuPercent !== null ? { storeCpuPercent: backlog.idle.storeCpuPercent } : {}),
              },
            },
            {
              id: 'invoke.backlog',
              value: `${backlog.invoke.requestsPerSecond} req/s, p50/p99 ${backlog.invoke.p50Ms}/${backlog.invoke.p99Ms} ms with ${backlog.idle.queued} queued = ${times(backlog.invoke.requestsPerSecond, single.requestsPerSecond)} × empty queue`,
              beside: `empty queue ${single.requestsPerSecond} req/s (same run; each ${ofRounds(backlog.invoke)}); ${storeBeside}`,
              numbers: {
                ...figures(backlog.invoke),
                emptyRequestsPerSecond: single.requestsPerSecond,
                rawInsertsPerSecond,
              },
            },
          ]
        : []),
      {
        id: 'dispatch.offer',
        value: `p50/p99 ${dispatchToOffer.p50Ms}/${dispatchToOffer.p99Ms} ms`,
        beside: `${dispatchToOffer.samples} samples at ${dispatchToOffer.dispatchesPerSecond} dispatches/s, received by a Kafka consumer (decided: p50/p99 ${dispatchToOffer.decidedP50Ms}/${dispatchToOffer.decidedP99Ms} ms); ${dispatchToOffer.missedAfter30s} missed after 30 s`,
        numbers: dispatchToOffer,
      },
    ]);
    const md = [
      `# Routing benchmark (${result.at})`,
      '',
      `Target: ${t.via}; ${result.machine.cpus} CPUs, Node ${result.machine.node}; client concurrency ${concurrency} (1-object), ${batchConcurrency} (50-object).`,
      `Store raw single-document inserts in this run: ${rawInsertsPerSecond}/s.`,
      '',
      '| measure | requests | objects/s | requests/s | p50 ms | p99 ms | max ms |',
      '|---|---|---|---|---|---|---|',
      `| Invoke, 1 object | ${single.requests} | ${single.objectsPerSecond} | ${single.requestsPerSecond} | ${single.p50Ms} | ${single.p99Ms} | ${single.maxMs} |`,
      `| Invoke, 50 objects | ${batch50.requests} | ${batch50.objectsPerSecond} | ${batch50.requestsPerSecond} | ${batch50.p50Ms} | ${batch50.p99Ms} | ${batch50.maxMs} |`,
      `| dispatch → offer | ${dispatchToOffer.samples} | | | ${dispatchToOffer.p50Ms} | ${dispatchToOffer.p99Ms} | ${dispatchToOffer.maxMs} |`,
      '',
    ].join('\n');
    writeFileSync(resolve(dir, 'routing.md'), md);
    process.stdout.write(`${md}\n`);
  } finally {
    await t.close();
  }
}

main()
  .then(() => process.exit(0))
  .catch((err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  });

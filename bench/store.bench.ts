/**
 * The store's raw rates, the yardstick for every store-bound figure of the same run: insertOne,
 * findOne by an indexed (non-unique) field, claim by findOneAndUpdate on an indexed pair, all at
 * concurrency 16 over SEED documents of ~300 bytes, and insertMany of 50. Then what the shape of a staged
 * event costs the store: aggregates shaped like a routing interaction with two staged events, inserted 50 at a
 * time and their outboxes cleared, with the events held as JSON text (as the bus stages them now) and as nested
 * objects (before), in alternating rounds of the same run; and the insert and the clear apart, with the store's CPU
 * per aggregate for each (an estimate of how many aggregates per second the store alone can write and publish).
 * Writes bench/results/store.json.
 * Env: BENCH_SECONDS (5 per phase), BENCH_STORE_SEED (2000).
 */
import { type CloudEvent, newEvent, type OutboxEntry, outboxEntries, stagedFields } from '@cc/bus';
import { fmt, freshName, percentile, storeCpuMeter, testInfra, writeBenchResult } from '@cc/testing';
import mongoose from 'mongoose';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const seed = Number(process.env.BENCH_STORE_SEED ?? 2000);
const concurrency = 16;
const pad = 'x'.repeat(250);

interface Phase {
  ops: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** Runs `op` from `concurrency` loops for `seconds`; counts what op returns (1 per call by default). */
async function phase(label: string, op: (i: number) => Promise<number | undefined>): Promise<Phase> {
  const latencies: number[] = [];
  let n = 0;
  let counted = 0;
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const s = performance.now();
        // Not `counted += await op()`: that reads `counted` before awaiting and loses the other loops' counts.
        const c = (await op(n++)) ?? 1;
        counted += c;
        latencies.push(performance.now() - s);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const res = {
    ops: counted,
    perSecond: counted / elapsed,
    p50Ms: Number(percentile(latencies, 50).toFixed(2)),
    p99Ms: Number(percentile(latencies, 99).toFixed(2)),
  };
  process.stdout.write(`[bench] store ${label}: ${fmt(res.perSecond)}/s, p50 ${res.p50Ms} ms, p99 ${res.p99Ms} ms\n`);
  return res;
}

/** An aggregate as routing inserts a queued interaction (its fields, a plan copy, a leg), ~1.2 kB before its outbox. */
function interactionShaped(id: string, outbox: OutboxEntry[]) {
  return {
    _id: id,
    accountId: 'bench-account',
    conversationId: `c-${id}`,
    requestId: `r-${id}`,
    externalId: `x-${id}`,
    provider: null,
    permissions: null,
    type: 'nonlive',
    medium: 'ApiObject',
    route: 'Bench',
    plan: { name: 'Bench Plan', reportingGroup: null, applets: [{ type: 'Queue', name: 'Bench queue' }] },
    linkeddata: [],
    dataSources: [],
    baseSkills: [],
    skills: [],
    personalQueue: null,
    recording: false,
    state: 'queued',
    createdAt: Date.now(),
    queuedAt: Date.now(),
    queue: { name: 'Bench queue', timeoutAt: null },
    offer: null,
    agent: null,
    legs: [
      {
        channelId: `ch-${id}`,
        offerId: `o-${id}`,
        agentId: 'a-1',
        agentUsername: 'bench-0',
        timeline: [],
        done: false,
      },
    ],
    offerAttempts: 0,
    unexpectedOffers: 0,
    lastDecisionSig: null,
    liveKey: `none:${id}`,
    version: 0,
    updatedAt: Date.now(),
    decisionCount: 0,
    dirty: true,
    outbox,
    outboxSeq: outbox.length,
  };
}

/** Two events as a dispatch stages them (queued, applet-executed), with the data of a real queued interaction. */
function stagedEvents(id: string): CloudEvent[] {
  const data = {
    interactionId: id,
    conversationId: `c-${id}`,
    route: 'Bench',
    plan: 'Bench Plan',
    type: 'nonlive',
    medium: 'ApiObject',
    provider: null,
    externalId: `x-${id}`,
    skills: [],
    linkeddata: [{ name: 'customer', value: 'bench' }],
    queue: { name: 'Bench queue', timeoutAt: null },
  };
  return ['interaction.queued', 'interaction.applet-executed'].map((type) =>
    newEvent({ source: '/cc/routing', type, subject: id, accountId: 'bench-account', data }),
  );
}

/**
 * insertMany of 50 interaction-shaped aggregates, then one bulk write clearing their outboxes (what an eager publish
 * does), with the staged events as text or as objects; 4 alternating rounds of `seconds / 2` each side.
 */
async function outboxShapes(db: mongoose.mongo.Db) {
  const rounds = 4;
  const sides = { text: { docs: 0, ms: 0 }, object: { docs: 0, ms: 0 } };
  let n = 0;
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 ? (['object', 'text'] as const) : (['text', 'object'] as const)) {
      const coll = db.collection(`outbox_${side}`);
      const until = performance.now() + (seconds * 1000) / 2;
      const t0 = performance.now();
      let docs = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (performance.now() < until) {
            const ids = Array.from({ length: 50 }, () => `o${n++}`);
            await coll.insertMany(
              ids.map((id) => {
                const entries = outboxEntries('cc.interaction.v1', stagedEvents(id));
                return interactionShaped(
                  id,
                  side === 'text' ? entries : entries.map((e) => ({ ...e, event: JSON.parse(e.event as string) })),
                ) as never;
              }),
            );
            await coll.bulkWrite(
              ids.map((id) => ({
                updateOne: { filter: { _id: id as never, outboxSeq: 2 }, update: { $set: { outbox: [] } } },
              })),
              { ordered: false },
            );
            docs += 50;
          }
        }),
      );
      sides[side].docs += docs;
      sides[side].ms += performance.now() - t0;
    }
  }
  const rate = (s: { docs: number; ms: number }) => (s.docs / s.ms) * 1000;
  const res = { textPerSecond: rate(sides.text), objectPerSecond: rate(sides.object) };
  process.stdout.write(
    `[bench] store outbox events as text: ${fmt(res.textPerSecond)} aggregates/s inserted and cleared; as objects: ${fmt(res.objectPerSecond)}/s (${(res.textPerSecond / res.objectPerSecond).toFixed(2)}x)\n`,
  );
  return res;
}

/**
 * The two halves of an eager publish, apart: interaction-shaped aggregates (events as text, flagged pending, in a
 * collection with the interactions' indexes) inserted 50 at a time by 4 writers for `seconds`, then the same
 * aggregates' outboxes cleared in bulk writes of 50 (one `updateOne` each, as the relay clears them), with the store's
 * own CPU per aggregate for each half when `local` (the local stack's FerretDB and PostgreSQL, less what they used at
 * rest just before). An aggregate whose events are published costs the store both halves.
 */
async function outboxFloor(db: mongoose.mongo.Db, local: boolean) {
  const coll = db.collection('outbox_floor');
  await coll.createIndex({ accountId: 1, liveKey: 1 }, { unique: true });
  await coll.createIndex({ accountId: 1, dirty: 1 });
  await coll.createIndex({ outboxPending: 1 });
  // What the store's processes use with nothing sent (autovacuum after the phases before, the checkpointer): a
  // second of it, taken off each half pro rata.
  let restMsPerMs = 0;
  if (local) {
    const rest = storeCpuMeter();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 1000));
    restMsPerMs = (rest?.() ?? 0) / (performance.now() - t0);
  }
  const chunks: string[][] = [];
  let n = 0;
  const half = async (work: () => Promise<boolean>) => {
    const cpu = local ? storeCpuMeter() : null;
    const t0 = performance.now();
    let docs = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (await work()) docs += 50;
      }),
    );
    const ms = performance.now() - t0;
    const used = cpu ? Math.max(0, cpu() - restMsPerMs * ms) : null;
    return {
      docs,
      perSecond: docs ? (docs / ms) * 1000 : 0,
      storeCpuMsEach: used !== null && docs ? used / docs : null,
    };
  };
  const insertUntil = performance.now() + seconds * 1000;
  const insert = await half(async () => {
    if (performance.now() >= insertUntil) return false;
    const ids = Array.from({ length: 50 }, () => `f${n++}`);
    await coll.insertMany(
      ids.map((id) => ({
        ...interactionShaped(id, []),
        ...stagedFields(outboxEntries('cc.interaction.v1', stagedEvents(id))),
      })) as never[],
      { ordered: false },
    );
    chunks.push(ids);
    return true;
  });
  const clear = await half(async () => {
    const ids = chunks.shift();
    if (!ids) return false;
    const res = await coll.bulkWrite(
      ids.map((id) => ({
        updateOne: {
          filter: { _id: id as never, outboxSeq: 2 },
          update: { $set: { outbox: [], outboxPending: false } },
        },
      })),
      { ordered: false },
    );
    // A clear that matched nothing would time no work at all.
    if (res.matchedCount !== ids.length) throw new Error(`outbox clear matched ${res.matchedCount} of ${ids.length}`);
    return true;
  });
  const each = insert.storeCpuMsEach !== null && clear.storeCpuMsEach !== null;
  const sum = (insert.storeCpuMsEach ?? 0) + (clear.storeCpuMsEach ?? 0);
  const res = {
    insert,
    clear,
    restStoreCpuPercent: Math.round(restMsPerMs * 1000) / 10,
    /**
     * An estimate of the store-only upper limit: aggregates inserted and cleared per second if the store's cost per
     * aggregate stayed as measured with both cores to itself (local stack only).
     */
    ceilingPerSecond: each && sum > 0 ? 2000 / sum : null,
  };
  const cpuText = (h: typeof insert) =>
    h.storeCpuMsEach === null ? '' : `, ${h.storeCpuMsEach.toFixed(2)} ms store CPU each`;
  process.stdout.write(
    `[bench] store outbox halves: insert ${fmt(insert.perSecond)}/s${cpuText(insert)}; clear ${fmt(clear.perSecond)}/s${cpuText(clear)}${res.ceilingPerSecond === null ? '' : `; both at most about ${fmt(res.ceilingPerSecond)}/s with two cores for the store (${res.restStoreCpuPercent} % at rest taken off)`}\n`,
  );
  return res;
}

async function main() {
  const { mongoUrl } = await testInfra();
  const conn = await mongoose
    .createConnection(mongoUrl, { dbName: freshName('bench_store'), maxPoolSize: 20 })
    .asPromise();
  const db = conn.db as NonNullable<typeof conn.db>;
  const info = await db.admin().command({ buildInfo: 1 });
  const store = info.ferretdbVersion ? `FerretDB ${info.ferretdbVersion}` : `MongoDB ${info.version}`;
  const docs = db.collection<{ _id: string; k: string; bucket: number; state: string; pad: string }>('docs');
  await docs.createIndex({ k: 1 });
  await docs.createIndex({ bucket: 1, state: 1 });
  const t = performance.now();
  for (let i = 0; i < seed; i += 500) {
    await docs.insertMany(
      Array.from({ length: Math.min(500, seed - i) }, (_, j) => ({
        _id: `s${i + j}`,
        k: `k${i + j}`,
        bucket: (i + j) % 64,
        state: 'ready',
        pad,
      })),
    );
  }
  process.stdout.write(
    `[bench] store: ${store} at ${mongoUrl}, seeded ${seed} documents in ${Math.round(performance.now() - t)} ms\n`,
  );

  const insert = await phase('insertOne', async (i) => {
    await docs.insertOne({ _id: `i${i}`, k: `i${i}`, bucket: 99, state: 'new', pad });
    return 1;
  });
  const find = await phase('findOne by indexed field', async (i) => {
    const d = await docs.findOne({ k: `k${(i * 7919) % seed}` });
    if (!d) throw new Error('indexed findOne found nothing');
    return 1;
  });
  const claim = await phase('claim (findOneAndUpdate)', async (i) => {
    const d = await docs.findOneAndUpdate({ bucket: i % 64, state: 'ready' }, { $set: { state: 'claimed' } });
    return d ? 1 : 0;
  });
  const many = await phase('insertMany 50', async (i) => {
    await docs.insertMany(
      Array.from({ length: 50 }, (_, j) => ({ _id: `m${i}_${j}`, k: `m${i}_${j}`, bucket: 98, state: 'new', pad })),
    );
    return 50;
  });
  const shapes = await outboxShapes(db);
  const floor = await outboxFloor(db, Boolean(info.ferretdbVersion));
  await db.dropDatabase().catch(() => undefined);
  await conn.close();

  const file = writeBenchResult(
    'store',
    {
      store,
      url: mongoUrl,
      concurrency,
      seconds,
      seededDocuments: seed,
      insertOne: insert,
      indexedFindOne: find,
      claim,
      insertMany50: many,
      outboxShapes: shapes,
      outboxHalves: floor,
    },
    [
      {
        id: 'store.raw',
        value: `insert ${fmt(insert.perSecond)}/s, indexed find ${fmt(find.perSecond)}/s, claim ${fmt(claim.perSecond)}/s`,
        beside: `${store}, c=${concurrency}, ${seed} docs; insertMany ${fmt(many.perSecond)} docs/s`,
        numbers: {
          insertPerSecond: Math.round(insert.perSecond),
          indexedFindPerSecond: Math.round(find.perSecond),
          claimPerSecond: Math.round(claim.perSecond),
          insertManyDocsPerSecond: Math.round(many.perSecond),
        },
      },
      {
        id: 'store.outbox-text',
        value: `${fmt(shapes.textPerSecond)} interaction-shaped aggregates/s inserted and cleared, events as text = ${(shapes.textPerSecond / shapes.objectPerSecond).toFixed(2)}x as objects`,
        beside: `events as objects ${fmt(shapes.objectPerSecond)}/s (same run, alternating rounds, 4 writers, 50 per insertMany)`,
        numbers: {
          textPerSecond: Math.round(shapes.textPerSecond),
          objectPerSecond: Math.round(shapes.objectPerSecond),
        },
      },
      {
        id: 'store.outbox-halves',
        value:
          floor.ceilingPerSecond === null
            ? `insert ${fmt(floor.insert.perSecond)}/s, outbox clear ${fmt(floor.clear.perSecond)}/s (interaction-shaped, 50 at a time)`
            : `insert ${(floor.insert.storeCpuMsEach as number).toFixed(2)} ms, outbox clear ${(floor.clear.storeCpuMsEach as number).toFixed(2)} ms of store CPU per interaction-shaped aggregate: about ${fmt(floor.ceilingPerSecond)}/s both at most with two cores for the store`,
        beside: `insert ${fmt(floor.insert.perSecond)}/s, clear ${fmt(floor.clear.perSecond)}/s (4 writers, 50 per insertMany / bulk write, the interactions' indexes; CPU of the store's processes less ${floor.restStoreCpuPercent} % at rest)`,
        numbers: {
          insertPerSecond: Math.round(floor.insert.perSecond),
          clearPerSecond: Math.round(floor.clear.perSecond),
          ...(floor.ceilingPerSecond === null
            ? {}
            : {
                insertStoreCpuMs: Number((floor.insert.storeCpuMsEach as number).toFixed(3)),
                clearStoreCpuMs: Number((floor.clear.storeCpuMsEach as number).toFixed(3)),
                ceilingPerSecond: Math.round(floor.ceilingPerSecond),
              }),
        },
      },
    ],
  );
  process.stdout.write(`[bench] store: wrote ${file}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

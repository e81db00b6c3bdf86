/**
 * The store's raw rates, the yardstick for every store-bound figure of the same run: insertOne,
 * findOne by an indexed (non-unique) field, claim by findOneAndUpdate on an indexed pair, all at
 * concurrency 16 over SEED documents of ~300 bytes, and insertMany of 50. Writes bench/results/store.json.
 * Env: BENCH_SECONDS (5 per phase), BENCH_STORE_SEED (2000).
 */
import { fmt, freshName, percentile, testInfra, writeBenchResult } from '@cc/testing';
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
    ],
  );
  process.stdout.write(`[bench] store: wrote ${file}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

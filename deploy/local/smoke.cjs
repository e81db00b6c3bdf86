#!/usr/bin/env node
// Smoke test of the local real infrastructure (run by `deploy/local/stack.sh smoke`).
//
//   node deploy/local/smoke.cjs [kafka] [store]             default: both; leaves nothing behind
//   node deploy/local/smoke.cjs persist-write|persist-check  restart check: keeps a topic, a
//                                                           consumer group's offsets and a document
//
// Env: KAFKA_BROKERS (127.0.0.1:9092), MONGO_URL (mongodb://127.0.0.1:27017).
// kafkajs and mongoose are loaded from the workspace packages that depend on them.
'use strict';

const path = require('node:path');
const { createRequire } = require('node:module');

const repo = path.resolve(__dirname, '..', '..');
const { Kafka, logLevel, Partitioners } = createRequire(path.join(repo, 'libs/bus/package.json'))('kafkajs');
const mongoose = createRequire(path.join(repo, 'libs/store/package.json'))('mongoose');

const brokers = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',');
const mongoUrl = process.env.MONGO_URL || 'mongodb://127.0.0.1:27017';
const N = 100;
const PERSIST_TOPIC = 'cc.smoke.persist';
const PERSIST_GROUP = 'cc-smoke-persist';

const kafka = new Kafka({
  clientId: 'cc-smoke',
  brokers,
  logLevel: logLevel.ERROR,
  connectionTimeout: 5000,
  retry: { retries: 5 },
});

function withTimeout(promise, ms, what) {
  let t;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      t = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(t));
}

// Consumes with a consumer group via eachBatch until `want` messages of `runId` arrived, commits.
async function consume(topic, groupId, want, runId) {
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 1000 });
  const seen = new Set();
  const t0 = Date.now();
  let joinedMs = 0;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    joinedMs = Date.now() - t0;
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let done;
  const finished = new Promise((resolve) => {
    done = resolve;
  });
  await consumer.run({
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary }) => {
      for (const m of batch.messages) {
        const v = JSON.parse(m.value.toString());
        if (v.run === runId) seen.add(v.i);
        resolveOffset(m.offset);
      }
      await commitOffsetsIfNecessary();
      await heartbeat();
      if (seen.size >= want) done();
    },
  });
  await withTimeout(finished, 60000, `consumer group ${groupId}`);
  await consumer.disconnect();
  return { count: seen.size, joinedMs, ms: Date.now() - t0 };
}

async function committed(admin, groupId, topic) {
  const [res] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return res.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
}

async function produce(topic, runId, n) {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true });
  await producer.connect();
  const messages = Array.from({ length: n }, (_, i) => ({
    key: `acc-${i % 7}:entity-${i}`,
    value: JSON.stringify({ run: runId, i }),
  }));
  await producer.sendBatch({ topicMessages: [{ topic, messages }], acks: -1 });
  await producer.disconnect();
}

async function smokeKafka() {
  const t0 = Date.now();
  const runId = `${Date.now()}-${process.pid}`;
  const topic = `cc.smoke.${runId}`;
  const groupId = `cc-smoke-${runId}`;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true });
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    const parts = meta.topics[0].partitions.length;
    if (parts !== 3) throw new Error(`topic ${topic} has ${parts} partitions, expected 3`);
    await produce(topic, runId, N);
    const r = await consume(topic, groupId, N, runId);
    if (r.count !== N) throw new Error(`consumed ${r.count} of ${N}`);
    const c = await committed(admin, groupId, topic);
    if (c !== N) throw new Error(`committed offsets sum to ${c}, expected ${N}`);
    await admin.deleteGroups([groupId]).catch(() => {});
    console.log(
      `smoke: kafka ok (${N} msgs, 3 partitions, group joined in ${r.joinedMs} ms, committed ${c}, total ${Date.now() - t0} ms)`,
    );
  } finally {
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  }
}

const SmokeSchema = new mongoose.Schema(
  {
    accountId: { type: String, required: true },
    key: { type: String, required: true },
    n: { type: Number, default: 0 },
    state: String,
    tags: [String],
    at: Date,
  },
  { collection: 'smoke', versionKey: false },
);
SmokeSchema.index({ accountId: 1, key: 1 }, { unique: true });

async function smokeStore() {
  const t0 = Date.now();
  const conn = await mongoose
    .createConnection(mongoUrl, { dbName: 'cc_smoke', serverSelectionTimeoutMS: 5000 })
    .asPromise();
  try {
    const Smoke = conn.model('Smoke', SmokeSchema);
    await Smoke.init(); // createCollection + createIndexes (autoIndex)
    await Smoke.syncIndexes();
    const idx = await Smoke.collection.indexes();
    if (!idx.some((i) => i.unique && i.key.accountId === 1 && i.key.key === 1)) {
      throw new Error(`unique index missing: ${JSON.stringify(idx)}`);
    }
    await Smoke.deleteMany({});
    const doc = await Smoke.create({ accountId: 'a1', key: 'k1', state: 'new', tags: ['x'], at: new Date() });
    let dup = false;
    try {
      await Smoke.create({ accountId: 'a1', key: 'k1' });
    } catch (e) {
      dup = e && e.code === 11000;
      if (!dup) throw e;
    }
    if (!dup) throw new Error('unique index not enforced');
    await Smoke.insertMany(
      Array.from({ length: 50 }, (_, i) => ({ accountId: 'a1', key: `bulk-${i}`, n: i })),
      { lean: true },
    );
    const up = await Smoke.updateOne({ _id: doc._id }, { $set: { state: 'done' }, $inc: { n: 5 } });
    if (up.modifiedCount !== 1) throw new Error(`updateOne modified ${up.modifiedCount}`);
    await Smoke.updateOne({ accountId: 'a1', key: 'k2' }, { $set: { state: 'up' }, $inc: { n: 1 } }, { upsert: true });
    await Smoke.bulkWrite(
      Array.from({ length: 10 }, (_, i) => ({
        updateOne: { filter: { accountId: 'a1', key: `bulk-${i}` }, update: { $inc: { n: 100 } } },
      })),
    );
    const got = await Smoke.findOne({ accountId: 'a1', key: 'k1' }).lean();
    if (!got || got.state !== 'done' || got.n !== 5) throw new Error(`findOne got ${JSON.stringify(got)}`);
    const page = await Smoke.find({ accountId: 'a1', n: { $gte: 100 } })
      .sort({ n: -1 })
      .limit(5)
      .lean();
    if (page.length !== 5 || page[0].n !== 109) throw new Error(`find/sort got ${JSON.stringify(page)}`);
    const agg = await Smoke.aggregate([
      { $match: { accountId: 'a1' } },
      { $group: { _id: '$accountId', total: { $sum: '$n' } } },
    ]);
    if (agg.length !== 1) throw new Error(`aggregate got ${JSON.stringify(agg)}`);
    const del = await Smoke.deleteOne({ _id: doc._id });
    if (del.deletedCount !== 1) throw new Error(`deleteOne deleted ${del.deletedCount}`);
    const left = await Smoke.countDocuments({ accountId: 'a1' });
    if (left !== 51) throw new Error(`countDocuments ${left}, expected 51`);
    await conn.dropDatabase();
    console.log(`smoke: store ok (${Date.now() - t0} ms)`);
  } finally {
    await conn.close();
  }
}

// Restart check: write a topic + committed group offsets + a document, restart the servers,
// then `persist-check` verifies all three survived.
async function persist(mode) {
  const admin = kafka.admin();
  await admin.connect();
  const conn = await mongoose
    .createConnection(mongoUrl, { dbName: 'cc_smoke_persist', serverSelectionTimeoutMS: 5000 })
    .asPromise();
  const col = conn.db.collection('marker');
  try {
    if (mode === 'persist-write') {
      const runId = `persist-${Date.now()}`;
      const topics = await admin.listTopics();
      if (!topics.includes(PERSIST_TOPIC)) {
        await admin.createTopics({
          topics: [{ topic: PERSIST_TOPIC, numPartitions: 3, replicationFactor: 1 }],
          waitForLeaders: true,
        });
      }
      await produce(PERSIST_TOPIC, runId, N);
      const r = await consume(PERSIST_TOPIC, PERSIST_GROUP, N, runId);
      const c = await committed(admin, PERSIST_GROUP, PERSIST_TOPIC);
      const end = (await admin.fetchTopicOffsets(PERSIST_TOPIC)).reduce((s, p) => s + Number(p.high), 0);
      if (c !== end) throw new Error(`committed ${c} != end offsets ${end}`);
      await col.updateOne({ _id: 'marker' }, { $set: { runId, committed: c }, $inc: { writes: 1 } }, { upsert: true });
      console.log(
        `persist-write: ok (topic ${PERSIST_TOPIC}, consumed ${r.count}, group committed ${c}, marker ${runId})`,
      );
    } else {
      const topics = await admin.listTopics();
      if (!topics.includes(PERSIST_TOPIC)) throw new Error(`topic ${PERSIST_TOPIC} is gone`);
      const marker = await col.findOne({ _id: 'marker' });
      if (!marker) throw new Error('marker document is gone');
      const c = await committed(admin, PERSIST_GROUP, PERSIST_TOPIC);
      const end = (await admin.fetchTopicOffsets(PERSIST_TOPIC)).reduce((s, p) => s + Number(p.high), 0);
      if (c !== marker.committed || end !== marker.committed) {
        throw new Error(`offsets changed: committed ${c}, end ${end}, expected ${marker.committed}`);
      }
      console.log(
        `persist-check: ok (topic kept, group offsets ${c} == end ${end}, marker ${marker.runId}, writes ${marker.writes})`,
      );
    }
  } finally {
    await admin.disconnect();
    await conn.close();
  }
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === 'persist-write' || args[0] === 'persist-check') return persist(args[0]);
  const which = args.length ? args : ['kafka', 'store'];
  for (const w of which) {
    if (w === 'kafka') await smokeKafka();
    else if (w === 'store') await smokeStore();
    else throw new Error(`unknown smoke target ${w}`);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`smoke: FAILED: ${err?.stack ?? err}`);
    process.exit(1);
  },
);

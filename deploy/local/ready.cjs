#!/usr/bin/env node
// One readiness probe (no retries; deploy/local/stack.sh loops): exit 0 when ready, 1 otherwise
// with the reason on stderr.
//
//   node deploy/local/ready.cjs kafka   metadata answered (listTopics), the group coordinator is
//                                       available and an idempotent producer can get its id
//   node deploy/local/ready.cjs store   MongoDB `ping` through mongoose
'use strict';

const path = require('node:path');
const { createRequire } = require('node:module');

const repo = path.resolve(__dirname, '..', '..');
const what = process.argv[2];

async function kafkaReady() {
  const { Kafka, logLevel } = createRequire(path.join(repo, 'libs/bus/package.json'))('kafkajs');
  const kafka = new Kafka({
    clientId: 'cc-stack-ready',
    brokers: (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(','),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2000,
    requestTimeout: 5000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin({ retry: { retries: 0 } });
  await admin.connect();
  try {
    await admin.listTopics();
    // FindCoordinator for a group: answered only once __consumer_offsets is ready.
    await admin.describeGroups(['cc-stack-ready']);
    // InitProducerId: answered only once the transaction coordinator has loaded its state, so
    // idempotent producers connect without "coordinator is loading" errors.
    const producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      retry: { retries: 2, initialRetryTime: 200 },
    });
    await producer.connect();
    await producer.disconnect();
  } finally {
    await admin.disconnect();
  }
}

async function storeReady() {
  const mongoose = createRequire(path.join(repo, 'libs/store/package.json'))('mongoose');
  const url = process.env.MONGO_URL || 'mongodb://127.0.0.1:27017';
  const conn = await mongoose
    .createConnection(url, { serverSelectionTimeoutMS: 2000, connectTimeoutMS: 2000 })
    .asPromise();
  try {
    const res = await conn.db.admin().ping();
    if (!res || res.ok !== 1) throw new Error(`ping answered ${JSON.stringify(res)}`);
  } finally {
    await conn.close();
  }
}

const probe = { kafka: kafkaReady, store: storeReady }[what];
if (!probe) {
  console.error('usage: ready.cjs kafka|store');
  process.exit(2);
}
const timer = setTimeout(() => {
  console.error(`${what}: probe timed out`);
  process.exit(1);
}, 10000);
probe().then(
  () => {
    clearTimeout(timer);
    process.exit(0);
  },
  (err) => {
    console.error(`${what}: ${err?.message ?? err}`);
    process.exit(1);
  },
);

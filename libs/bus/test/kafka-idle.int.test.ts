import { createHook } from 'node:async_hooks';
import type { Consumer } from 'kafkajs';
import { createLogger } from '../../kit/src/logger';
import { eventually, freshName, testInfra } from '../../testing/src';
import { createKafka, EventProducer, EventSchemas, ensureTopics, newEvent, startConsumer } from '../src';

const logger = createLogger('kafka-idle-test', 'silent');

/** Timers created by the whole process during `ms` (every setTimeout/setInterval arming counts once). */
async function timersCreatedDuring(ms: number): Promise<number> {
  let created = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'Timeout') created++;
    },
  });
  const start = Date.now();
  hook.enable();
  try {
    // One timer of our own for the wait itself; everything else is kafkajs (and jest) idling.
    await new Promise((r) => setTimeout(r, ms));
  } finally {
    hook.disable();
  }
  return (created * 1000) / (Date.now() - start);
}

it('a connected, idle producer and consumer do not wake the process hundreds of times a second', async () => {
  const infra = await testInfra();
  const kafka = createKafka({ brokers: infra.kafkaBrokers, clientId: 'kafka-idle-test', logger });
  const schemas = new EventSchemas({ 'idle.probe': { type: 'object' } });
  const producer = new EventProducer(kafka, schemas, logger);
  const topic = freshName('idle');
  const groupId = freshName('idle-g');
  let consumer: Consumer | undefined;
  try {
    await ensureTopics(
      kafka,
      [topic, `${groupId}.dlq`].map((t) => ({ topic: t, numPartitions: 1 })),
    );
    await producer.connect();
    let received = 0;
    consumer = await startConsumer({
      kafka,
      groupId,
      topics: [topic],
      schemas,
      producer,
      logger,
      handler: async () => {
        received++;
      },
    });
    // One event through both clients proves they are connected and the consumer's fetch loop runs.
    await producer.publish(topic, [
      newEvent({ source: '/cc/test', type: 'idle.probe', subject: 's', accountId: 'a', data: {} }),
    ]);
    await eventually(() => received, { accept: (n) => n > 0, timeoutMs: 30_000, what: 'the probe event consumed' });
    // kafkajs 2.2.4 re-armed a request-queue timer with a negative delay (~1 ms) for as long as a broker
    // connection was open: ~900 timers/s per connection. Patched (patches/kafkajs@2.2.4.patch), an idle
    // client arms only heartbeats, fetch long-polls and their request-timeout checks.
    const perSecond = await timersCreatedDuring(3000);
    expect(perSecond).toBeLessThan(60);
  } finally {
    await consumer?.disconnect();
    await producer.disconnect();
  }
}, 90_000);

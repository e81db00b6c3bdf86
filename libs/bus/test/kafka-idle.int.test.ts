import { createHook } from 'node:async_hooks';
import type { Consumer } from 'kafkajs';
import { createLogger } from '../../kit/src/logger';
import { eventually, freshName, testInfra } from '../../testing/src';
import { createKafka, EventProducer, EventSchemas, ensureTopics, newEvent, startConsumer } from '../src';

const logger = createLogger('kafka-idle-test', 'silent');

/**
 * Counts timer callbacks (every setTimeout firing and every setInterval tick) of timers created while it was on:
 * `firedDuring` gives the rate over a window, so an interval armed before the window still counts each tick.
 */
function timerFires() {
  const timers = new Set<number>();
  let fired = 0;
  const hook = createHook({
    init(id, type) {
      if (type === 'Timeout') timers.add(id);
    },
    before(id) {
      if (timers.has(id)) fired++;
    },
    destroy(id) {
      timers.delete(id);
    },
  });
  hook.enable();
  return {
    async firedDuring(ms: number): Promise<number> {
      const start = Date.now();
      const before = fired;
      // One timer of our own for the wait itself; everything else is kafkajs (and jest) idling.
      await new Promise((r) => setTimeout(r, ms));
      return ((fired - before - 1) * 1000) / (Date.now() - start);
    },
    stop: () => hook.disable(),
  };
}

it('a connected, idle producer and consumer fire fewer than two timers a second', async () => {
  const infra = await testInfra();
  const timers = timerFires();
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
    // connection was open (~900 timers/s per connection), and checked request timeouts every 100 ms while a
    // request was in flight, which a consumer's long-poll fetch always is (10/s per connection). Patched
    // (patches/kafkajs@2.2.4.patch), an idle client's timers fire only for heartbeats, for the end of a fetch
    // long-poll, and at a request's own timeout.
    const perSecond = await timers.firedDuring(6000);
    expect(perSecond).toBeLessThan(2);
  } finally {
    timers.stop();
    await consumer?.disconnect();
    await producer.disconnect();
  }
}, 90_000);

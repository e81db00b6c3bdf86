import type { CloudEvent } from '../../bus/src';
import { exampleEvent } from '../../contracts/src';
import { freshName, testInfra } from '../../testing/src';
import { startRuntime } from '../src';

it("a service's own shutdown steps run after the consumers and while the producer and the store still work", async () => {
  const infra = await testInfra();
  const runtime = await startRuntime({
    name: 'shutdown-order-test',
    config: {
      PORT: 0,
      LOG_LEVEL: 'error',
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      KAFKA_TOPIC_PARTITIONS: 1,
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: freshName('cc_rt_order'),
      BODY_LIMIT: '1mb',
      SHUTDOWN_DEADLINE_MS: 20_000,
    },
    exitOnShutdown: false,
  });
  const topic = freshName('rt_shutdown_order');
  await runtime.ensureTopics([topic]);
  const seen: string[] = [];
  // A draining step publishes (as the notifier's pipeline does for outcomes) and writes to the store.
  runtime.onShutdown('drain', async () => {
    await runtime.producer.publish(topic, [exampleEvent('account.feature-flags-changed') as unknown as CloudEvent]);
    seen.push('published');
    await runtime.conn.collection('drained').insertOne({ at: new Date() });
    seen.push('stored');
  });
  runtime.onShutdown('after drain', async () => {
    seen.push('second step');
  });
  await runtime.listen(() => undefined);
  await runtime.stop();
  expect(seen).toEqual(['published', 'stored', 'second step']);
}, 60_000);

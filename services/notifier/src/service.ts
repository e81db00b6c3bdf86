import { readFileSync } from 'node:fs';
import { EagerPublisher } from '@cc/bus';
import { createSecretBox, createTokenVerifier } from '@cc/kit';
import { type Runtime, startRuntime } from '@cc/runtime';
import { EndpointBreakers } from './clients/endpoint-breakers';
import { ProviderEndpointClient } from './clients/provider-endpoint.client';
import type { Config } from './config';
import { EndpointAllowlist } from './domain/address-policy';
import { parseEndpointKey } from './domain/keys';
import { consumedTopics, notifierConsumer } from './events/notifier.consumer';
import { producedTopics } from './events/topics';
import { mountRoutes } from './http/routes';
import { DeliveryRepository } from './store/delivery.repository';
import { InteractionRepository } from './store/interaction.repository';
import { notifierModels } from './store/notifier.models';
import { ProviderRepository } from './store/provider.repository';
import { DeliveryPipeline } from './workers/delivery.pipeline';
import { createNotifierMetrics } from './workers/notifier.metrics';

const breakerStateValue = { closed: 0, halfOpen: 1, open: 2 } as const;

/**
 * Starts the notifier: store and Kafka, the pipeline that delivers notifications (after taking over
 * what a stopped instance left open), the consumer that feeds it, and the admin API. Returns the
 * runtime once listening.
 */
export async function startService(
  config: Readonly<Config>,
  opts: { logDestination?: NodeJS.WritableStream; exitOnShutdown?: boolean } = {},
): Promise<Runtime> {
  const box = createSecretBox(config.CC_ENCRYPTION_KEYS);
  const runtime = await startRuntime({
    name: 'notifier',
    config,
    ...(opts.logDestination ? { logDestination: opts.logDestination } : {}),
    ...(opts.exitOnShutdown === undefined ? {} : { exitOnShutdown: opts.exitOnShutdown }),
  });
  const deadLetterTopic = `${config.KAFKA_GROUP_ID}.dlq`;
  await runtime.ensureTopics([...producedTopics, deadLetterTopic]);

  const models = notifierModels(runtime.conn);
  const relay = await runtime.useModels(
    [models.deliveries, models.providers, models.interactions],
    [models.deliveries, models.providers],
  );
  const deliveries = new DeliveryRepository(models);
  const providers = new ProviderRepository(models);
  const interactions = new InteractionRepository(models);

  let pipeline: DeliveryPipeline | undefined;
  const breakers = new EndpointBreakers({
    volumeThreshold: config.BREAKER_FAILURE_THRESHOLD,
    errorPercentage: config.BREAKER_ERROR_PERCENTAGE,
    resetMs: config.BREAKER_RESET_MS,
    windowMs: config.BREAKER_WINDOW_MS,
    onStateChange: (gate, state) => {
      runtime.logger.info({ endpointHost: gate.host, ...parseEndpointKey(gate.key), state }, 'endpoint breaker state');
      if (state !== 'open') pipeline?.resume(gate.key);
    },
    onEvent: (gate, event) => pipeline?.metrics?.breakerEvents.inc({ host: gate.host, event }),
  });
  const client = new ProviderEndpointClient({
    timeoutMs: config.ATTEMPT_TIMEOUT_MS,
    allowlist: EndpointAllowlist.parse(config.ENDPOINT_ALLOWLIST),
    ...(config.NOTIFIER_EXTRA_CA_FILE ? { extraCaPem: readFileSync(config.NOTIFIER_EXTRA_CA_FILE, 'utf8') } : {}),
  });
  const live = new DeliveryPipeline({
    config,
    owner: config.instanceId,
    deliveries,
    providers,
    client,
    breakers,
    box,
    producer: runtime.producer,
    publisher: new EagerPublisher({ relay, logger: runtime.logger.child({ component: 'publisher' }) }),
    logger: runtime.logger,
  });
  pipeline = live;
  live.metrics = createNotifierMetrics(runtime.metrics, {
    inFlight: () => live.inFlight(),
    breakers: () =>
      breakers.all().map((gate) => {
        const { accountId, provider } = parseEndpointKey(gate.key);
        return {
          labels: { host: gate.host, account: accountId, provider },
          state: live.provider(accountId, provider)?.disabledAt ? 3 : breakerStateValue[EndpointBreakers.state(gate)],
          failures: gate.consecutiveFailures,
        };
      }),
  });
  live.onSweep = async (cutoff) => {
    await interactions.expire(cutoff, 50);
  };

  const consumer = notifierConsumer({ deliveries, providers, interactions, box, pipeline: live });
  // Shutdown order (runtime): HTTP, consumers, then this step, then the outbox relays, producer and store.
  runtime.onShutdown('pipeline', async () => {
    await consumer.drain().catch(() => undefined);
    await live.stop();
    breakers.shutdown();
    client.close();
  });

  await live.start();
  await runtime.consume({
    groupId: config.KAFKA_GROUP_ID,
    topics: consumedTopics,
    deadLetterTopic,
    deduper: consumer.deduper(),
    // Partitions handled side by side: their records share one group commit.
    partitionsConsumedConcurrently: config.KAFKA_TOPIC_PARTITIONS,
    handler: consumer.handler,
  });

  const verify = createTokenVerifier({
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    jwks: config.AUTH_JWKS_URL,
    accountClaim: config.AUTH_ACCOUNT_CLAIM,
  });
  await runtime.listen((app) =>
    mountRoutes(app, {
      verify,
      deliveries,
      providers,
      breakers,
      pipeline: live,
      owner: config.instanceId,
      leaseMs: config.leaseMs,
    }),
  );
  return runtime;
}

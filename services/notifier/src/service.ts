import { readFileSync } from 'node:fs';
import { eventSchemas } from '@cc/contracts';
import { createSecretBox, createTokenVerifier } from '@cc/kit';
import { type Runtime, startRuntime } from '@cc/runtime';
import { EndpointBreakers } from './clients/endpoint-breakers';
import { ProviderEndpointClient } from './clients/provider-endpoint.client';
import type { Config } from './config';
import { EndpointAllowlist } from './domain/address-policy';
import './domain/errors';
import { parseEndpointKey } from './domain/keys';
import { consumedTopics, notifierHandler } from './events/notifier.consumer';
import { producedTopics } from './events/topics';
import { mountRoutes } from './http/routes';
import { DeliveryRepository } from './store/delivery.repository';
import { InteractionRepository } from './store/interaction.repository';
import { notifierModels } from './store/notifier.models';
import { ProviderRepository } from './store/provider.repository';
import { DeliveryDispatcher } from './workers/delivery.dispatcher';
import { createNotifierMetrics } from './workers/notifier.metrics';

const breakerStateValue = { closed: 0, halfOpen: 1, open: 2 } as const;

/**
 * Starts the notifier: store and Kafka, the consumer that records notifications, the dispatcher that
 * delivers them, and the admin API. Returns the runtime once listening.
 */
export async function startService(
  config: Readonly<Config>,
  opts: { logDestination?: NodeJS.WritableStream; exitOnShutdown?: boolean } = {},
): Promise<Runtime> {
  const box = createSecretBox(config.CC_ENCRYPTION_KEYS);
  const runtime = await startRuntime({
    name: 'notifier',
    config,
    eventSchemas,
    ...(opts.logDestination ? { logDestination: opts.logDestination } : {}),
    ...(opts.exitOnShutdown === undefined ? {} : { exitOnShutdown: opts.exitOnShutdown }),
  });
  const deadLetterTopic = `${config.KAFKA_GROUP_ID}.dlq`;
  await runtime.ensureTopics([...producedTopics, deadLetterTopic]);

  const models = notifierModels(runtime.conn);
  const relay = await runtime.useModels(
    [models.deliveryQueue, models.deliveryLogSystem, models.providerSystem, models.interactions],
    [models.deliveryQueue, models.providerSystem],
  );
  const deliveries = new DeliveryRepository(models);
  const providers = new ProviderRepository(models);
  const interactions = new InteractionRepository(models);

  const breakers = new EndpointBreakers({
    failureThreshold: config.BREAKER_FAILURE_THRESHOLD,
    resetMs: config.BREAKER_RESET_MS,
    onStateChange: (gate, state) =>
      runtime.logger.info({ endpointHost: gate.host, ...parseEndpointKey(gate.key), state }, 'endpoint breaker state'),
  });
  const client = new ProviderEndpointClient({
    timeoutMs: config.ATTEMPT_TIMEOUT_MS,
    allowlist: new EndpointAllowlist(config.ENDPOINT_ALLOWLIST),
    ...(config.NOTIFIER_EXTRA_CA_FILE ? { extraCaPem: readFileSync(config.NOTIFIER_EXTRA_CA_FILE, 'utf8') } : {}),
  });
  const dispatcher = new DeliveryDispatcher({
    config,
    deliveries,
    providers,
    client,
    breakers,
    box,
    relay,
    logger: runtime.logger,
    deadLetterTopic,
  });
  dispatcher.metrics = createNotifierMetrics(runtime.metrics, {
    inFlight: () => dispatcher.inFlight(),
    breakers: () =>
      breakers.all().map((gate) => {
        const { accountId, provider } = parseEndpointKey(gate.key);
        return {
          labels: { host: gate.host, account: accountId, provider },
          state: dispatcher.isDisabled(gate.key) ? 3 : breakerStateValue[EndpointBreakers.state(gate)],
          failures: gate.consecutiveFailures,
        };
      }),
  });

  // Shutdown order (runtime): HTTP, consumers, outbox relay, then this step, then producer and store.
  runtime.onShutdown('dispatcher', async () => {
    await dispatcher.stop();
    breakers.shutdown();
    client.close();
  });

  dispatcher.start();
  await runtime.consume({
    groupId: config.KAFKA_GROUP_ID,
    topics: consumedTopics,
    deadLetterTopic,
    handler: notifierHandler({
      deliveries,
      providers,
      interactions,
      box,
      onRecorded: () => dispatcher.wake(),
      onProviderChanged: (key, endpointChanged, reregistered) =>
        dispatcher.providerChanged(key, endpointChanged, reregistered),
    }),
  });

  const verify = createTokenVerifier({
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    jwks: config.AUTH_JWKS_URL,
    accountClaim: config.AUTH_ACCOUNT_CLAIM,
  });
  await runtime.listen((app) =>
    mountRoutes(app, { verify, deliveries, providers, breakers, onReplayed: () => dispatcher.wake() }),
  );
  return runtime;
}

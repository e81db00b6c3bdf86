import type { RequestListener } from 'node:http';
import { EagerPublisher } from '@cc/bus';
import { parseV0Deprecation } from '@cc/contracts';
import { createSecretBox } from '@cc/kit';
import { type Runtime, startRuntime } from '@cc/runtime';
import { KeyRing } from './auth/key-ring';
import { TokenIssuer } from './auth/token-issuer';
import { gatewayVerifier } from './auth/verifier';
import type { Config } from './config';
import { parseByteSize } from './domain/byte-size';
import { checkRateLimit } from './domain/rate-limit-policy';
import type { Upstream } from './domain/route-table';
import { startEventStreamConsumer, streamedTopics, streamGroupId } from './events/event-stream.consumer';
import { EventStreamHub } from './events/event-stream.hub';
import { producedTopics } from './events/topics';
import { locateConsole } from './http/console.handler';
import { withFastPath } from './http/fast-path';
import { v0DeprecationMarker } from './http/guard.middleware';
import { createProxy } from './http/proxy.handler';
import { ClientRateLimiter, TokenAttemptLimiter } from './http/rate-limit';
import { mountRoutes } from './http/routes';
import { AccountLimits } from './identity/account-limits';
import { AccountsService } from './identity/accounts.service';
import { ClientsService } from './identity/clients.service';
import { seedDemo } from './identity/demo-seed';
import { V0CredentialsService } from './identity/v0-credentials.service';
import { openGatewayStore } from './store/gateway-store';

/** The started gateway: the runtime plus what tests and the CLI reach for. */
export interface GatewayService extends Runtime {
  keyRing?: KeyRing;
  issuer?: TokenIssuer;
  eventStream: EventStreamHub;
  /** True once the event stream's consumer has joined its group (also reported by /readyz). */
  eventStreamJoined(): boolean;
}

/**
 * Starts the gateway: store and Kafka (runtime), identity repositories and outbox relay, the signing keys (built-in
 * issuer) or an external issuer's JWKS, the optional demo seed, then HTTP. Returns once it listens.
 */
export async function startService(
  config: Config,
  opts: { logDestination?: NodeJS.WritableStream; exitOnShutdown?: boolean } = {},
): Promise<GatewayService> {
  const defaults = checkRateLimit({ rps: config.RATE_LIMIT_RPS, burst: config.RATE_LIMIT_BURST });
  const bodyLimitBytes = parseByteSize(config.GATEWAY_BODY_LIMIT);
  const mediaBodyLimitBytes = parseByteSize(config.GATEWAY_MEDIA_BODY_LIMIT);
  const markV0 = v0DeprecationMarker(parseV0Deprecation(config.V0_DEPRECATED_AT, config.V0_SUNSET_AT));
  const box = createSecretBox(config.CC_ENCRYPTION_KEYS);
  const runtime = await startRuntime({
    name: 'gateway',
    config,
    ...(opts.logDestination ? { logDestination: opts.logDestination } : {}),
    ...(opts.exitOnShutdown === undefined ? {} : { exitOnShutdown: opts.exitOnShutdown }),
  });
  const { logger } = runtime;
  await runtime.ensureTopics(producedTopics);
  const store = openGatewayStore(runtime.conn);
  const relay = await runtime.useModels(store.models, [store.accounts.model]);

  const accounts = new AccountsService(
    store.accounts,
    new EagerPublisher({ relay, logger: runtime.logger.child({ component: 'publisher' }) }),
  );
  const clients = new ClientsService(store.clients);
  const v0 = new V0CredentialsService(store.v0);

  const external = config.AUTH_JWKS_URL || undefined;
  let keyRing: KeyRing | undefined;
  let issuer: TokenIssuer | undefined;
  if (!external) {
    keyRing = new KeyRing(store.signingKeys, box, {
      activationDelayMs: config.SIGNING_KEY_ACTIVATION_DELAY_MS,
      logger: logger.child({ component: 'signing-keys' }),
    });
    await keyRing.init();
    await keyRing.checkActive();
    keyRing.start(config.SIGNING_KEY_RELOAD_MS);
    const ring = keyRing;
    runtime.onShutdown('signing key reload', async () => ring.stop());
    issuer = new TokenIssuer(keyRing, { issuer: config.AUTH_ISSUER, audience: config.AUTH_AUDIENCE });
  } else {
    logger.info({ issuer: config.AUTH_ISSUER, jwksUrl: external }, 'external token issuer; token endpoints disabled');
  }
  const verify = gatewayVerifier({
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    accountClaim: config.AUTH_ACCOUNT_CLAIM,
    ...(external ? { jwksUrl: external } : { keyRing }),
  });

  if (config.CC_DEMO_SEED) {
    await seedDemo(
      { accounts, clients, v0, logger },
      {
        clientId: config.CC_DEMO_CLIENT_ID,
        clientSecret: config.CC_DEMO_CLIENT_SECRET,
        v0AccountKey: config.CC_DEMO_V0_ACCOUNT_KEY,
        v0ApiToken: config.CC_DEMO_V0_API_TOKEN,
      },
    );
  }

  const upstreams: Record<Upstream, string> = {
    routing: config.UPSTREAM_ROUTING_URL,
    'provider-registry': config.UPSTREAM_PROVIDER_REGISTRY_URL,
    notifier: config.UPSTREAM_NOTIFIER_URL,
    summaries: config.UPSTREAM_SUMMARIES_URL,
    analysis: config.UPSTREAM_ANALYSIS_URL,
    statistics: config.UPSTREAM_STATISTICS_URL,
  };
  const proxy = createProxy({
    upstreams,
    timeoutMs: config.PROXY_TIMEOUT_MS,
    bodyLimitBytes,
    mediaBodyLimitBytes,
    logger: logger.child({ component: 'proxy' }),
  });
  runtime.onShutdown('upstream connections', async () => proxy.close());

  const consoleDir = locateConsole(config.CONSOLE_DIR);
  if (!consoleDir) logger.warn('operator console not built: /console answers 404 (pnpm --filter @cc/console build)');
  // Live events (GET /events/stream): one consumer of this instance's own, fanned out in memory.
  const eventStream = new EventStreamHub({
    windowEvents: config.EVENT_STREAM_WINDOW,
    heartbeatMs: config.EVENT_STREAM_HEARTBEAT_MS,
    maxBufferedBytes: config.EVENT_STREAM_MAX_BUFFER_BYTES,
    maxBufferedEvents: config.EVENT_STREAM_MAX_BUFFER_EVENTS,
    retryMs: 3000,
    logger: logger.child({ component: 'event-stream' }),
    metrics: runtime.metrics,
  });
  await runtime.ensureTopics([...streamedTopics]);
  const streamConsumer = await startEventStreamConsumer({
    kafka: runtime.kafka,
    groupId: streamGroupId(config.KAFKA_GROUP_ID),
    hub: eventStream,
    logger,
  });
  // Ready once the group is joined: a stream opened before would silently miss the first events.
  runtime.readiness.add('event-stream', async () => {
    if (!streamConsumer.joined()) throw new Error('event stream consumer has not joined its group yet');
  });
  runtime.onShutdown('event stream consumer', () => streamConsumer.consumer.disconnect());
  eventStream.start();

  const limiter = new ClientRateLimiter();
  const accountLimits = new AccountLimits(store.accounts, defaults, config.ACCOUNT_CACHE_MS);
  const corsOrigins = config.CORS_ORIGINS.split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  const server = await runtime.listen((app) =>
    mountRoutes(app, {
      verify,
      limiter,
      accountLimits,
      corsOrigins,
      bodyLimitBytes,
      mediaBodyLimitBytes,
      token: {
        ...(issuer ? { issuer } : {}),
        ...(keyRing ? { keyRing } : {}),
        ...(external ? { externalIssuer: config.AUTH_ISSUER } : {}),
        clients,
        v0,
        attempts: new TokenAttemptLimiter({
          attemptsPerMinute: config.TOKEN_ATTEMPTS_PER_MINUTE,
          failuresPerClient: config.TOKEN_FAILURES_PER_CLIENT,
        }),
        logger,
      },
      admin: {
        accounts,
        clients,
        v0,
        isPlatformAdmin: async (accountId, clientId) =>
          Boolean((await store.clients.get(accountId, clientId))?.platformAdmin),
      },
      ...(consoleDir ? { consoleDir } : {}),
      eventStream,
      proxy: proxy.handler,
      markV0,
      logger,
    }),
  );
  // Proxied requests that pass every check skip the Express chain (same verifier, limiter and proxy); the rest,
  // and every error answer, stay with the Express app the runtime built.
  const [expressApp] = server.listeners('request') as RequestListener[];
  if (!expressApp) throw new Error('the HTTP server has no request listener');
  server.removeListener('request', expressApp);
  server.on(
    'request',
    withFastPath(expressApp, {
      verify,
      limiter,
      accountLimits,
      corsEnabled: corsOrigins.length > 0,
      bodyLimitBytes,
      mediaBodyLimitBytes,
      proxy,
      markV0,
      logger,
      metrics: runtime.metrics,
    }),
  );
  // Open streams never end by themselves, so the server's graceful close would wait for them until the deadline:
  // end them when the close begins (clients reconnect, with Last-Event-ID, to another instance).
  const close = server.close.bind(server);
  server.close = ((callback?: (err?: Error) => void) => {
    eventStream.closeAll();
    return close(callback);
  }) as typeof server.close;
  return Object.assign(runtime, { keyRing, issuer, eventStream, eventStreamJoined: streamConsumer.joined });
}

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { EagerPublisher, OutboxRelay } from '@cc/bus';
import { type Runtime, startRuntime } from '@cc/runtime';
import { crossAccount, type StoreModel } from '@cc/store';
import type { mongo } from 'mongoose';
import { AdminService } from './app/admin.service';
import { AgentSync } from './app/agent-sync';
import { AssignmentEngine } from './app/assignment-engine';
import type { RoutingContext } from './app/context';
import { DesktopService } from './app/desktop.service';
import { InteractionActions } from './app/interaction-actions';
import { InvokeService } from './app/invoke.service';
import type { Config } from './config';
import { providerEventHandler } from './events/provider.consumer';
import { producedTopics, providerTopic } from './events/topics';
import { verifierFor } from './http/auth';
import { mountRoutes } from './http/routes';
import { AccountLeaseRepository } from './store/account-lease.repository';
import { AccountMemory } from './store/account-memory';
import { AgentRepository } from './store/agent.repository';
import { ConfigRepository } from './store/config.repository';
import { InteractionRepository } from './store/interaction.repository';
import { createModels } from './store/models';
import { ProviderRepository } from './store/provider.repository';
import { RequestLogRepository } from './store/request-log.repository';

/** A started routing service: the runtime plus the engine (tests drive passes and read leases). */
export interface RoutingService extends Runtime {
  engine: AssignmentEngine;
  context: RoutingContext;
}

/**
 * Starts routing: store and Kafka, the provider read-model consumer, the outbox relay, the assignment
 * engine, then HTTP. Tests call it in-process with `PORT: 0` and a fresh `MONGO_DB`.
 */
export async function startService(
  config: Config,
  opts: {
    logDestination?: NodeJS.WritableStream;
    exitOnShutdown?: boolean;
  } = {},
): Promise<RoutingService> {
  if (config.REQUEST_ID_RETENTION_HOURS < 24) throw new Error('REQUEST_ID_RETENTION_HOURS must be at least 24');
  const runtime = await startRuntime({
    name: 'routing',
    config,
    ...(opts.logDestination ? { logDestination: opts.logDestination } : {}),
    ...(opts.exitOnShutdown !== undefined ? { exitOnShutdown: opts.exitOnShutdown } : {}),
  });
  await runtime.ensureTopics(producedTopics);
  const models = createModels(runtime.conn);
  await runtime.useModels([
    models.interactions,
    models.archive,
    models.decisions,
    models.externalIds,
    models.agents,
    models.skills,
    models.routes,
    models.plans,
    models.providers,
    models.requests,
    models.accounts,
  ]);
  // Our own relay rather than the runtime's (its sweep interval is routing's own setting).
  const relay = new OutboxRelay({
    models: [models.interactions, models.agents],
    producer: runtime.producer,
    logger: runtime.logger.child({ component: 'outbox' }),
    metrics: runtime.metrics,
    sweepMs: config.OUTBOX_SWEEP_MS,
  });
  relay.start();
  // Bookkeeping expires by an indexed time field (no TTL indexes on the portable store).
  const archiveCutoff = () => Date.now() - config.ARCHIVE_RETENTION_DAYS * 86_400_000;
  // Retention spans accounts: each sweep deletes by an indexed time field, whatever the account.
  const raw = (m: StoreModel) => crossAccount<mongo.Document>(m, 'retention sweep across accounts');
  runtime.expiry.add({
    name: 'invoke_requests',
    collection: raw(models.requests),
    field: 'expiresAt',
    cutoff: Date.now,
  });
  runtime.expiry.add({
    name: 'interaction_decisions',
    collection: raw(models.decisions),
    field: 'at',
    cutoff: archiveCutoff,
  });
  runtime.expiry.add({
    name: 'interaction_archive',
    collection: raw(models.archive),
    field: 'endedAt',
    cutoff: archiveCutoff,
  });
  const logger = runtime.logger;
  const instanceId = config.INSTANCE_ID || `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const providers = new ProviderRepository(models, config.CONFIG_CACHE_MS);
  const memory = new AccountMemory();
  const context: RoutingContext = {
    settings: {
      offerTimeoutMs: config.OFFER_TIMEOUT_MS,
      rejectCooldownMs: config.REJECT_COOLDOWN_MS,
      missedOffersAway: config.MISSED_OFFERS_AWAY,
      transferWindowSeconds: config.TRANSFER_PERSONAL_QUEUE_S,
      syncGraceMs: config.SYNC_GRACE_MS,
      reserveGraceMs: config.RESERVE_GRACE_MS,
      leaseMs: config.LEASE_MS,
      passGapMs: config.ENGINE_PASS_GAP_MS,
      sweepMs: config.ENGINE_SWEEP_MS,
      reloadMs: config.ENGINE_RELOAD_MS,
      memoryIdleMs: config.ENGINE_MEMORY_IDLE_MS,
      maxQueuedPerPass: config.MAX_QUEUED_PER_PASS,
      passConcurrency: config.ENGINE_PASS_CONCURRENCY,
      instanceId,
    },
    logger: logger.child({ component: 'routing' }),
    interactions: new InteractionRepository(models, memory),
    agents: new AgentRepository(models, memory),
    config: new ConfigRepository(models, config.CONFIG_CACHE_MS),
    providers,
    requests: new RequestLogRepository(models, config.REQUEST_ID_RETENTION_HOURS * 3_600_000),
    leases: new AccountLeaseRepository(models),
    memory,
    publisher: new EagerPublisher({
      relay,
      logger: logger.child({ component: 'publisher' }),
      enabled: config.OUTBOX_EAGER_PUBLISH,
    }),
    waker: { wake: async () => undefined },
  };
  const sync = new AgentSync(context);
  const actions = new InteractionActions(context, sync);
  const engine = new AssignmentEngine(context, sync, actions);
  context.waker = engine;

  await runtime.consume({
    groupId: config.KAFKA_GROUP_ID,
    topics: [providerTopic],
    handler: providerEventHandler(providers),
  });
  engine.start();
  runtime.onShutdown('assignment engine', () => engine.stop());
  runtime.onShutdown('eager publisher', () => context.publisher.drain());
  runtime.onShutdown('outbox relay', () => relay.stop());

  await runtime.listen((app) =>
    mountRoutes(app, {
      verify: verifierFor(config),
      invoke: new InvokeService(context, actions),
      admin: new AdminService(context),
      desktop: new DesktopService(context, actions),
    }),
  );
  logger.info({ instanceId }, 'routing engine started');
  return Object.assign(runtime, { engine, context });
}

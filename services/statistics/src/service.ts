import { parseV0Deprecation } from '@cc/contracts';
import { createTokenVerifier } from '@cc/kit';
import { type Runtime, startRuntime } from '@cc/runtime';
import type { Config } from './config';
import { StatisticsConsumer } from './events/statistics.consumer';
import { consumedTopics, producedTopics } from './events/topics';
import { mountRoutes } from './http/routes';
import { statisticsModels } from './store/models';
import { StatisticsRepository } from './store/statistics.repository';

/** A started statistics service: its runtime plus the consumer (tests and the benchmark read its counters). */
export interface StatisticsService extends Runtime {
  consumer: StatisticsConsumer;
  repo: StatisticsRepository;
}

/**
 * Starts the statistics service: store and Kafka, the consumer group over agent-activity and interaction events
 * (batched writes), the retention sweep, then HTTP. Config is parsed by the caller (main or a test).
 */
export async function startService(
  config: Config,
  opts: { logDestination?: NodeJS.WritableStream; exitOnShutdown?: boolean; now?: () => number } = {},
): Promise<StatisticsService> {
  const v0 = parseV0Deprecation(config.V0_DEPRECATED_AT, config.V0_SUNSET_AT);
  const runtime = await startRuntime({
    name: 'statistics',
    config,
    ...(opts.logDestination ? { logDestination: opts.logDestination } : {}),
    ...(opts.exitOnShutdown !== undefined ? { exitOnShutdown: opts.exitOnShutdown } : {}),
  });
  try {
    await runtime.ensureTopics(producedTopics);
    const models = statisticsModels(runtime.conn);
    await runtime.useModels(Object.values(models));
    const repo = new StatisticsRepository(models);
    const consumer = new StatisticsConsumer(repo, opts.now);
    await runtime.consume({
      groupId: config.KAFKA_GROUP_ID,
      topics: consumedTopics,
      handler: consumer.handle,
      handleEach: consumer.handleEach,
      flush: consumer.flush,
      ...StatisticsConsumer.consumerOptions,
      // Every write is an upsert by natural key (activities) or by sequence (interaction logs), so a redelivered
      // event rewrites the same fields: the event-id deduper would only add two store round trips per batch (and,
      // with one, the bus parses a whole batch up front).
      deduper: undefined,
    });

    // Retention: a slow sweep of bounded `_id` deletes (no TTL indexes on the portable store subset).
    const sweepLog = runtime.logger.child({ component: 'retention' });
    let sweeping: Promise<void> | undefined;
    const sweep = () => {
      sweeping ??= repo
        .expire(Date.now() - config.RETENTION_DAYS * 86_400_000, config.RETENTION_MAX_HOURS)
        .then((n) => void (n && sweepLog.info({ deletedBuckets: n }, 'old statistics deleted')))
        .catch((err) => sweepLog.warn({ err: (err as Error).message }, 'retention sweep failed; retried next time'))
        .finally(() => {
          sweeping = undefined;
        });
    };
    const timer = setInterval(sweep, config.RETENTION_SWEEP_MS);
    timer.unref();
    runtime.onShutdown('retention', async () => {
      clearInterval(timer);
      await sweeping;
    });

    const verify = createTokenVerifier({
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
      jwks: config.AUTH_JWKS_URL,
      accountClaim: config.AUTH_ACCOUNT_CLAIM,
    });
    await runtime.listen((app) => mountRoutes(app, { verify, repo, v0, ...(opts.now ? { now: opts.now } : {}) }));
    return Object.assign(runtime, { consumer, repo });
  } catch (err) {
    await runtime.stop().catch(() => undefined);
    throw err;
  }
}

import { EagerPublisher } from '@cc/bus';
import { createTokenVerifier, isConnectivityError } from '@cc/kit';
import { type Runtime, startRuntime } from '@cc/runtime';
import type { Config } from './config';
import type { Transcriber } from './domain/transcriber';
import { PocketSphinxTranscriber } from './engines/pocketsphinx.transcriber';
import { recordedHandler } from './events/recorded.consumer';
import { interactionTopic, producedTopics } from './events/topics';
import { mountRoutes } from './http/routes';
import { AnalysisWorker, type WorkerDeps } from './pipeline/analysis.worker';
import { analysisModels } from './store/analysis.model';
import { AnalysisRepository } from './store/analysis.repository';
import { GridFsRecordingStorage } from './store/recording.storage';

/** The started analysis service: the runtime plus its worker (tests wait on it). */
export interface AnalysisService extends Runtime {
  worker: AnalysisWorker;
  repo: AnalysisRepository;
}

/**
 * Starts the analysis service: store and Kafka, topics, the analyses collection with its outbox relay, the
 * speech worker (warm), the analysis queue, the interaction.recorded consumer, then HTTP.
 */
export async function startService(
  config: Config,
  opts: {
    logDestination?: NodeJS.WritableStream;
    exitOnShutdown?: boolean;
    onFinished?: WorkerDeps['onFinished'];
  } = {},
): Promise<AnalysisService> {
  const runtime = await startRuntime({
    name: 'analysis',
    config,
    ...(opts.logDestination ? { logDestination: opts.logDestination } : {}),
    ...(opts.exitOnShutdown !== undefined ? { exitOnShutdown: opts.exitOnShutdown } : {}),
  });
  try {
    await runtime.ensureTopics(producedTopics);
    const { Analysis, CategorySet } = analysisModels(runtime.conn);
    const relay = await runtime.useModels([Analysis, CategorySet], [Analysis]);
    const publisher = new EagerPublisher({ relay, logger: runtime.logger.child({ component: 'publisher' }) });
    const repo = new AnalysisRepository(Analysis, CategorySet, publisher, {
      ms: config.ANALYSIS_READ_CACHE_MS,
      maxEntries: 10_000,
    });
    const storage = new GridFsRecordingStorage(runtime.conn);
    const transcriber: Transcriber & { warm?: () => Promise<void> } = new PocketSphinxTranscriber({
      python: config.ANALYSIS_PYTHON,
      pythonPath: config.ANALYSIS_PYTHONPATH,
      timeoutMs: config.ANALYSIS_WORKER_TIMEOUT_MS,
      logger: runtime.logger,
    });
    // Fail fast when the engine is not installed (./cc installs it), rather than on the first recording.
    await transcriber.warm?.();
    const worker = new AnalysisWorker({
      repo,
      storage,
      transcriber,
      logger: runtime.logger.child({ component: 'analysis-worker' }),
      leaseMs: config.ANALYSIS_LEASE_MS,
      sweepMs: config.ANALYSIS_SWEEP_MS,
      maxAttempts: config.ANALYSIS_MAX_ATTEMPTS,
      defaultLanguage: config.ANALYSIS_DEFAULT_LANGUAGE,
      ...(opts.onFinished ? { onFinished: opts.onFinished } : {}),
    });
    runtime.onShutdown('analysis worker', async () => {
      await worker.stop();
      await transcriber.close();
    });
    const wake = () => worker.wake();
    await runtime.consume({
      groupId: config.KAFKA_GROUP_ID,
      topics: [interactionTopic],
      handler: recordedHandler(repo, wake),
      isInfrastructureError: isConnectivityError,
    });
    worker.start();
    const verify = createTokenVerifier({
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
      jwks: config.AUTH_JWKS_URL,
      accountClaim: config.AUTH_ACCOUNT_CLAIM,
    });
    await runtime.listen((app) =>
      mountRoutes(app, { verify, repo, storage, recordingLimitBytes: config.ANALYSIS_RECORDING_LIMIT_BYTES, wake }),
    );
    return Object.assign(runtime, { worker, repo });
  } catch (err) {
    await runtime.stop().catch(() => undefined);
    throw err;
  }
}

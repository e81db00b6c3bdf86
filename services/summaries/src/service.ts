import { createTokenVerifier } from '@cc/kit';
import { type Runtime, startRuntime } from '@cc/runtime';
import type { Config } from './config';
import { SummaryBook } from './domain/book';
import { AccountFlags } from './domain/flags';
import { summariesEventHandler, summariesRawHandler } from './events/activity.consumer';
import { IngestWorker } from './events/ingest';
import { RecentIds } from './events/recent-ids';
import { producedTopics } from './events/topics';
import { Watermark } from './events/watermark';
import { mountRoutes } from './http/routes';
import { summariesModels } from './store/summaries.models';
import { SummariesRepository } from './store/summaries.repository';

/** A started summaries service: the runtime plus its in-memory state (tests read the watermark). */
export interface SummariesService extends Runtime {
  book: SummaryBook;
  flags: AccountFlags;
  watermark: Watermark;
  /** When the consumer had joined its group and started fetching (epoch ms; the benchmark times from it). */
  consumingSince: number;
}

const dayMs = 86_400_000;

/**
 * Starts summaries: store and Kafka, the stored buckets, agent states and flags loaded into memory, HTTP, then the
 * consumer (batches share store writes; a batch's offsets are committed once the write holding it landed, while
 * the next batches are already fetched and handled).
 */
export async function startService(
  config: Config,
  opts: { logDestination?: NodeJS.WritableStream; exitOnShutdown?: boolean } = {},
): Promise<SummariesService> {
  const runtime = await startRuntime({
    name: 'summaries',
    config,
    ...(opts.logDestination ? { logDestination: opts.logDestination } : {}),
    ...(opts.exitOnShutdown !== undefined ? { exitOnShutdown: opts.exitOnShutdown } : {}),
  });
  try {
    await runtime.ensureTopics(producedTopics);
    const models = summariesModels(runtime.conn);
    await runtime.useModels([models.Account, models.Meta]);
    const repo = new SummariesRepository(models, runtime.conn.getClient().db(config.MONGO_DB));
    const book = new SummaryBook();
    const flags = new AccountFlags();
    const retentionMs = config.RETENTION_DAYS * dayMs;
    // Parsing and validation on a thread of their own, started while the store loads (it compiles the schemas); a
    // worker that cannot start fails the start, before HTTP.
    const ingest = new IngestWorker(runtime.logger);
    runtime.onShutdown('ingest worker', () => ingest.stop());
    const ingestReady = ingest.start();
    ingestReady.catch(() => undefined); // awaited below, after the load
    const loaded = await repo.load(book, new Date(Date.now() - retentionMs));
    await ingestReady;
    for (const f of loaded.flags) flags.load(f);
    const watermark = new Watermark(config.WATERMARK_GRACE_MS, loaded.watermark);
    runtime.logger.info(
      { buckets: book.size(), accounts: loaded.flags.length, watermark: loaded.watermark },
      'summaries loaded',
    );

    // Store writes one at a time: a batch's flush, or a compaction of the stored versions.
    let chain: Promise<unknown> = Promise.resolve();
    const exclusive = <T>(run: () => Promise<T>): Promise<T> => {
      const next = chain.then(run, run);
      chain = next.catch(() => undefined);
      return next;
    };
    let compactDue = false;
    const compact = async () => {
      const started = Date.now();
      const live = book.snapshot();
      await repo.compact(live);
      compactDue = false;
      runtime.logger.info({ buckets: live.buckets.length, ms: Date.now() - started }, 'stored summaries compacted');
    };
    // Group writes: batches of several partitions that finish while a write runs share the next one (it takes
    // everything dirty when it starts), so the store sees one write per round, not one per partition batch.
    let queued: Promise<void> | null = null;
    const flush = (): Promise<void> => {
      if (queued) return queued;
      const next = exclusive(async () => {
        queued = null;
        const changes = { ...book.takeDirty(), flags: flags.takeDirty() };
        const started = Date.now();
        try {
          await repo.save({ ...changes, watermark: watermark.upTo() });
          runtime.logger.debug(
            { buckets: changes.buckets.length, agents: changes.agents.length, ms: Date.now() - started },
            'batch written',
          );
        } catch (err) {
          book.restoreDirty(changes);
          flags.restoreDirty(changes.flags);
          throw err;
        }
        if (compactDue || repo.needsCompaction(book.size())) await compact();
      });
      queued = next;
      return next;
    };
    // HTTP first (its validators compile as it mounts): the query answers from the loaded state meanwhile, and the
    // consumer, once started, shares the thread with no boot work left.
    const verify = createTokenVerifier({
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
      jwks: config.AUTH_JWKS_URL,
      accountClaim: config.AUTH_ACCOUNT_CLAIM,
    });
    await runtime.listen((app) => mountRoutes(app, { verify, book, flags, upTo: () => watermark.upTo() }));
    const recent = new RecentIds();
    const consumer = await runtime.consume({
      groupId: config.KAFKA_GROUP_ID,
      topics: [config.AGENT_ACTIVITY_TOPIC, config.ACCOUNT_TOPIC],
      handler: summariesEventHandler(book, flags, recent),
      // Each fetched batch read on the ingest worker and what it says applied here; the per-event handler from the
      // first message the worker cannot take (an invalid one), or for the whole batch if the worker failed. One span
      // per fetched batch: the consumer sends nothing on.
      handleRaw: summariesRawHandler(ingest, book, flags),
      spans: 'batch',
      // Event ids are remembered by the handlers as they apply (`RecentIds`): with a deduper the bus would parse each
      // 4 MiB batch whole before handling it, and the parsed batch would outlive the young generation.
      deduper: undefined,
      flush,
      // Partitions handled side by side share writes (above); bigger fetches mean fewer rounds.
      partitionsConsumedConcurrently: 8,
      maxBytesPerPartition: 4 * 1024 * 1024,
      // The next fetches are handled while a write runs; offsets commit when the write holding them lands.
      writesInFlight: 16,
    });
    const consumingSince = Date.now();
    watermark.attach(consumer);

    // Hourly expiry: forget old periods in memory; the next compaction leaves them out of the store.
    const expiry = setInterval(() => {
      book.expire(Date.now() - retentionMs);
      compactDue = true;
    }, 3_600_000);
    expiry.unref();
    runtime.onShutdown('expiry', async () => clearInterval(expiry));
    return Object.assign(runtime, { book, flags, watermark, consumingSince });
  } catch (err) {
    await runtime.stop().catch(() => undefined);
    throw err;
  }
}

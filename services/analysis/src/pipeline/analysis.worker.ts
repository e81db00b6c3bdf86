import { randomUUID } from 'node:crypto';
import { newEvent } from '@cc/bus';
import type { Logger } from '@cc/kit';
import { renderItem } from '../domain/analysis-item';
import type { Transcriber } from '../domain/transcriber';
import { parseWav, stereoCall } from '../domain/wav';
import type { AnalysisDoc } from '../store/analysis.model';
import type { AnalysisRepository } from '../store/analysis.repository';
import type { RecordingStorage } from '../store/recording.storage';
import { type AnalysisResult, analyzeAudio, analyzeSegments } from './analyzer';

/** What the worker needs from the composition root. */
export interface WorkerDeps {
  repo: AnalysisRepository;
  storage: RecordingStorage;
  transcriber: Transcriber;
  logger: Logger;
  /** A claimed job is this worker's for this long, renewed while it runs. */
  leaseMs: number;
  /** Safety sweep (expired leases, work queued by other instances); wake-ups do the normal work. */
  sweepMs: number;
  /** Attempts before a job that keeps failing (engine crash, store error) is marked failed. */
  maxAttempts: number;
  defaultLanguage: string;
  /** Called with each finished job's processing time and audio length (metrics, benchmarks). */
  onFinished?: (r: { guid: string; state: 'processed' | 'failed'; processingMs: number; audioSeconds: number }) => void;
}

const source = '/cc/analysis';

/** A failure that retrying cannot fix (the stored audio is unusable): the job fails at once. */
class PermanentFailure extends Error {}

/**
 * Runs the analysis queue: woken by each new job in this process, plus a slow sweep that requeues jobs of
 * dead workers (lease ended) and picks up work queued through other instances. One job at a time: the
 * recognizer is CPU-bound and the service shares its cores.
 */
export class AnalysisWorker {
  readonly owner = randomUUID();
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: WorkerDeps) {}

  /** Requeues what dead workers left, starts the sweep and drains the queue. */
  start(): void {
    this.timer = setInterval(() => this.sweep(), this.deps.sweepMs);
    this.timer.unref();
    this.sweep();
  }

  /** Work was queued: drain the queue now (coalesced with a drain in progress). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Stops claiming, waits for the job in hand (its lease lets another instance resume it otherwise). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  private sweep(): void {
    this.deps.repo
      .requeueExpired()
      .then((n) => {
        if (n) this.deps.logger.warn({ requeued: n }, 'requeued analyses whose worker stopped (lease ended)');
      })
      .catch((err) => this.deps.logger.warn({ err: (err as Error).message }, 'analysis sweep failed'))
      .finally(() => this.wake());
  }

  private async drain(): Promise<void> {
    while (!this.stopped) {
      let job: AnalysisDoc | undefined;
      try {
        job = await this.deps.repo.claim(this.owner, this.deps.leaseMs);
      } catch (err) {
        this.deps.logger.warn({ err: (err as Error).message }, 'could not claim analysis work');
        return;
      }
      if (!job) return;
      await this.process(job);
    }
  }

  private async process(job: AnalysisDoc): Promise<void> {
    const { repo, logger, leaseMs } = this.deps;
    const log = logger.child({ accountId: job.accountId, guid: job.guid, attempt: job.attempts });
    const renew = setInterval(
      () => {
        repo.renew(job._id, this.owner, leaseMs).catch(() => undefined);
      },
      Math.max(1000, Math.floor(leaseMs / 3)),
    );
    try {
      const result = await this.analyze(job);
      const view = { guid: job.guid, status: 'processed' as const, ...result, transcript: null };
      const event = newEvent({
        source,
        type: 'analysis.completed',
        subject: job.guid,
        accountId: job.accountId,
        data: { guid: job.guid, result: renderItem(view, 3, false), occurredAt: new Date().toISOString() },
      });
      const kept = await repo.finish(job, this.owner, { state: 'processed', result, event });
      log.info(
        { processingMs: result.processingMs, audioSeconds: result.audioSeconds, kept },
        kept ? 'analysis processed' : 'analysis result discarded (the job was requeued meanwhile)',
      );
      this.deps.onFinished?.({
        guid: job.guid,
        state: 'processed',
        processingMs: result.processingMs,
        audioSeconds: result.audioSeconds,
      });
    } catch (err) {
      const reason = (err as Error).message.slice(0, 500);
      const permanent = err instanceof PermanentFailure || (err as { code?: string }).code === 'ANALYSIS.BAD_AUDIO';
      if (!permanent && job.attempts < this.deps.maxAttempts) {
        log.warn({ err: reason }, 'analysis attempt failed; the job is queued again');
        await repo.release(job, this.owner).catch(() => undefined);
        return;
      }
      const event = newEvent({
        source,
        type: 'analysis.failed',
        subject: job.guid,
        accountId: job.accountId,
        data: { guid: job.guid, reason, occurredAt: new Date().toISOString() },
      });
      await repo
        .finish(job, this.owner, { state: 'failed', reason, event })
        .catch((e) => log.error({ err: (e as Error).message }, 'could not record the failed analysis'));
      log.error({ err: reason }, 'analysis failed');
      this.deps.onFinished?.({ guid: job.guid, state: 'failed', processingMs: 0, audioSeconds: 0 });
    } finally {
      clearInterval(renew);
    }
  }

  private async analyze(job: AnalysisDoc): Promise<AnalysisResult> {
    const rules = await this.deps.repo.rules(job.accountId);
    if (job.source === 'event') {
      return analyzeSegments(job.segments, job.durationMs ?? 0, rules, job.language, this.deps.defaultLanguage);
    }
    const bytes = await this.deps.storage.get(job.accountId, job.recordingId);
    if (!bytes) throw new PermanentFailure(`recording ${job.recordingId} is missing from storage`);
    const call = stereoCall(parseWav(bytes), job.layout === 'right' ? 'right' : 'left');
    return analyzeAudio(call, this.deps.transcriber, rules, job.language);
  }
}

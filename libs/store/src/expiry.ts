import type { Logger } from '@cc/kit';
import type { mongo } from 'mongoose';

/** One kind of bookkeeping that expires: which collection, by which indexed time field, before when. */
export interface ExpiryTask {
  name: string;
  /** The driver collection (below mongoose middleware: expiry is across accounts, not tenant data access). */
  collection: mongo.Collection;
  /** An indexed time field (a Date or epoch milliseconds, as the documents store it). */
  field: string;
  /** Documents whose `field` is before this are deleted. */
  cutoff: () => Date | number;
}

/**
 * Deletes documents whose `field` is before `cutoff`, in batches of `batch` and at most `maxBatches` of
 * them: the ids are read by the indexed range, then deleted by `_id` equality (what every store serves from
 * its index). A store without TTL indexes needs this; what is left over goes on the next run.
 */
export async function expireBefore(
  collection: mongo.Collection,
  field: string,
  cutoff: Date | number,
  opts: { batch?: number; maxBatches?: number } = {},
): Promise<number> {
  const batch = opts.batch ?? 500;
  let deleted = 0;
  for (let round = 0; round < (opts.maxBatches ?? 20); round++) {
    const ids = (
      await collection
        .find({ [field]: { $lt: cutoff } }, { projection: { _id: 1 } })
        .limit(batch)
        .toArray()
    ).map((d) => d._id);
    if (!ids.length) break;
    const res = await collection.bulkWrite(
      ids.map((_id) => ({ deleteOne: { filter: { _id } } })),
      { ordered: false },
    );
    deleted += res.deletedCount;
    if (ids.length < batch) break;
  }
  return deleted;
}

/**
 * Runs the expiry tasks every `intervalMs` (first run after `firstRunMs`): a slow periodic job, the only
 * store traffic of an idle service besides the outbox sweep. Failures are logged and retried next run.
 */
export class ExpiryJob {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;

  constructor(
    private readonly tasks: ExpiryTask[],
    private readonly opts: { intervalMs: number; firstRunMs?: number; logger: Logger; batch?: number },
  ) {}

  /** Adds a task (services add their own bookkeeping to the runtime's job). */
  add(task: ExpiryTask): void {
    this.tasks.push(task);
  }

  /** Runs every task once; returns how many documents each deleted. */
  async runOnce(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const task of this.tasks) {
      try {
        counts[task.name] = await expireBefore(task.collection, task.field, task.cutoff(), {
          ...(this.opts.batch ? { batch: this.opts.batch } : {}),
        });
      } catch (err) {
        this.opts.logger.warn({ err: (err as Error).message, task: task.name }, 'expiry failed; retried next run');
      }
    }
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    if (total) this.opts.logger.info({ deleted: counts }, 'expired bookkeeping deleted');
    return counts;
  }

  /** Starts the periodic runs. */
  start(): void {
    this.stopped = false;
    const run = async () => {
      if (this.stopped) return;
      this.running = this.runOnce().then(() => undefined);
      await this.running;
      if (!this.stopped) this.arm(this.opts.intervalMs, run);
    };
    this.arm(this.opts.firstRunMs ?? Math.min(60_000, this.opts.intervalMs), run);
  }

  private arm(ms: number, run: () => Promise<void>): void {
    this.timer = setTimeout(() => void run(), ms);
    this.timer.unref();
  }

  /** Stops the runs and waits for one in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}

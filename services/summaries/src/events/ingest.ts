import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '@cc/kit';
import type { KafkaMessage } from 'kafkajs';
import { encodeBatch, type ReadChunk } from './ingest-read';

interface Pending {
  resolve: (r: ReadChunk) => void;
  reject: (err: Error) => void;
}

/**
 * How to start the worker: the compiled bundle's sibling (`dist/ingest.worker.js`, see deploy/docker/build.cjs), else
 * the TypeScript source through tsx's CommonJS hook (the workspace's development loader; the service's own `--import
 * tsx` does not reach a worker's entry file).
 */
function workerEntry(): { entry: string; eval: boolean } {
  const js = resolve(__dirname, 'ingest.worker.js');
  if (existsSync(js)) return { entry: js, eval: false };
  const ts = resolve(__dirname, 'ingest.worker.ts');
  const tsx = require.resolve('tsx/cjs/api');
  return { entry: `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(ts)});`, eval: true };
}

/**
 * Parsing and validating the consumed events on a worker thread of their own: summaries' consumer thread spent more
 * than half its time on those (JSON, schemas) and their garbage. The consumer posts each fetched batch's raw values
 * (moved, not copied) and applies the intervals that come back; batches of several partitions are read one after the
 * other, in the order posted. A worker that fails or exits fails what it had in hand (the bus then handles those
 * batches event by event) and is started again for the next batch.
 */
export class IngestWorker {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stopped = false;
  private cancelStart: ((err: Error) => void) | null = null;
  /** Fails the running worker and what it has in hand (set while one runs). */
  private failWorker: ((err: Error) => void) | null = null;

  constructor(
    private readonly log: Logger,
    private readonly opts: {
      /**
       * Longest wait for one read (default 30 s; a batch of 1,000 events takes milliseconds): a worker that has not
       * answered by then is taken as hung, stopped, and what it had in hand fails (the bus then handles those batches
       * event by event), so a stuck thread cannot stall the consumer.
       */
      readTimeoutMs?: number;
    } = {},
  ) {}

  /** Starts the worker and waits until it compiled its schemas and reads. */
  start(): Promise<void> {
    if (this.ready) return this.ready;
    const { entry, eval: evaluate } = workerEntry();
    const worker = new Worker(entry, { eval: evaluate, execArgv: [], name: 'summaries-ingest' });
    this.worker = worker;
    this.ready = new Promise<void>((resolveReady, rejectReady) => {
      this.cancelStart = rejectReady;
      const fail = (err: Error) => {
        if (this.worker !== worker) return;
        this.worker = null;
        this.ready = null;
        this.failWorker = null;
        rejectReady(err);
        for (const p of this.pending.values()) p.reject(err);
        this.pending.clear();
        if (!this.stopped) this.log.warn({ err: err.message }, 'ingest worker failed; it restarts with the next batch');
      };
      this.failWorker = (err) => {
        fail(err);
        void worker.terminate();
      };
      worker.on('message', (msg: { ready?: true; id?: number; error?: string } & Partial<ReadChunk>) => {
        if (msg.ready) return resolveReady();
        const p = this.pending.get(msg.id as number);
        if (!p) return;
        this.pending.delete(msg.id as number);
        if (msg.error !== undefined) p.reject(new Error(msg.error));
        else p.resolve(msg as ReadChunk);
      });
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`ingest worker exited (code ${code})`)));
    });
    return this.ready;
  }

  /**
   * Reads a fetched batch on the worker: how many leading messages are valid events, and what they say. Settle every
   * read: the worker remembers its event ids (skipped when read again) only once told they were applied.
   */
  async read(topic: string, messages: KafkaMessage[]): Promise<ReadChunk> {
    // Stopped, or the worker died, while this waited for it: stop, or start another (once).
    let worker: Worker | null = null;
    for (let attempt = 0; attempt < 2 && !worker; attempt++) {
      if (this.stopped) throw new Error('ingest worker stopped');
      await this.start();
      if (this.stopped) throw new Error('ingest worker stopped');
      worker = this.worker;
    }
    if (!worker) throw new Error('ingest worker did not stay up');
    const batch = encodeBatch(
      topic,
      messages.map((m) => m.value),
    );
    const id = this.nextId++;
    const timeoutMs = this.opts.readTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    return new Promise<ReadChunk>((resolveRead, rejectRead) => {
      this.pending.set(id, { resolve: resolveRead, reject: rejectRead });
      worker.postMessage({ id, batch }, [batch.bytes.buffer as ArrayBuffer, batch.ends.buffer as ArrayBuffer]);
      timer = setTimeout(() => {
        if (this.pending.has(id) && this.worker === worker)
          this.failWorker?.(new Error(`ingest worker did not answer a read within ${timeoutMs} ms`));
      }, timeoutMs);
    }).finally(() => clearTimeout(timer));
  }

  /**
   * Tells the worker whether the batch it read was applied (its event ids are then skipped when read again) or not
   * (forgotten). A read of a worker since replaced needs none: its ids went with it.
   */
  settle(read: ReadChunk, applied: boolean): void {
    this.worker?.postMessage({ settle: read.id, applied });
  }

  /** Stops the worker (what it had in hand fails, as does a start still under way). */
  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    this.worker = null;
    this.ready = null;
    this.failWorker = null;
    const stopped = new Error('ingest worker stopped');
    this.cancelStart?.(stopped);
    for (const p of this.pending.values()) p.reject(stopped);
    this.pending.clear();
    await worker?.terminate();
  }
}

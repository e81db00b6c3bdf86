import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from '@cc/kit';
import type { RecognizedWord, Transcriber } from '../domain/transcriber';

/**
 * Where the worker script lives: the package's `worker/` folder, two levels above this file in the sources
 * (src/engines) and one level above the compiled bundle (dist/main.js, as the image and `pnpm deploy` lay it out).
 */
export const workerScript =
  [join(__dirname, '..', '..', 'worker'), join(__dirname, '..', 'worker')]
    .map((dir) => join(dir, 'pocketsphinx_worker.py'))
    .find((file) => existsSync(file)) ?? join(__dirname, '..', '..', 'worker', 'pocketsphinx_worker.py');

/** How to run the PocketSphinx worker. */
export interface PocketSphinxOptions {
  python: string;
  /** Folder the `pocketsphinx` package is installed in (`pip install --target`), put on PYTHONPATH. */
  pythonPath: string;
  /** Longest wait for one chunk's transcription before the worker is restarted. */
  timeoutMs: number;
  logger: Logger;
}

interface Pending {
  resolve: (words: RecognizedWord[]) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * PocketSphinx (US-English model shipped in its wheel) in a Python process kept warm: the model loads once,
 * then each chunk is one JSON line each way. Requests are answered in order; a crash or a timeout fails the
 * requests in flight and the next request starts a fresh worker.
 */
export class PocketSphinxTranscriber implements Transcriber {
  readonly name = 'pocketsphinx';
  readonly language = 'en-US';
  private proc: ChildProcessWithoutNullStreams | undefined;
  private ready: Promise<void> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  /** CPU seconds the worker spent recognising so far (benchmarks: a figure the machine's load does not inflate). */
  cpuSeconds = 0;

  constructor(private readonly opts: PocketSphinxOptions) {}

  /** Starts the worker now (at service start) so the first call does not pay for loading the model. */
  warm(): Promise<void> {
    return this.start();
  }

  private start(): Promise<void> {
    if (this.ready) return this.ready;
    const proc = spawn(this.opts.python, ['-u', workerScript], {
      env: { PATH: process.env.PATH ?? '', PYTHONPATH: this.opts.pythonPath, PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.proc = proc;
    const log = this.opts.logger.child({ component: 'pocketsphinx', pid: proc.pid });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-2000);
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: proc.stdout });
      lines.on('line', (line) => {
        let msg: { ready?: boolean; id?: number; words?: RecognizedWord[]; error?: string; cpu?: number };
        try {
          msg = JSON.parse(line);
        } catch {
          log.warn({ line: line.slice(0, 200) }, 'unreadable line from the speech worker');
          return;
        }
        if (msg.ready) {
          log.info('speech worker ready');
          return resolve();
        }
        const p = msg.id !== undefined ? this.pending.get(msg.id) : undefined;
        if (!p || msg.id === undefined) return;
        this.pending.delete(msg.id);
        clearTimeout(p.timer);
        this.cpuSeconds += msg.cpu ?? 0;
        if (msg.error) p.reject(new Error(`speech worker: ${msg.error}`));
        else p.resolve(msg.words ?? []);
      });
      proc.on('error', (err) => reject(err));
      proc.on('exit', (code, signal) => {
        if (this.proc === proc) {
          this.proc = undefined;
          this.ready = undefined;
        }
        const err = new Error(`speech worker exited (${code ?? signal}): ${stderr.trim().slice(-500)}`);
        if (!this.closed) log.warn({ code, signal }, 'speech worker exited');
        reject(err);
        for (const [id, p] of this.pending) {
          clearTimeout(p.timer);
          p.reject(err);
          this.pending.delete(id);
        }
      });
    });
    this.ready.catch(() => undefined);
    return this.ready;
  }

  async transcribe(audio: Int16Array, sampleRate: number): Promise<RecognizedWord[]> {
    if (this.closed) throw new Error('transcriber closed');
    await this.start();
    const proc = this.proc;
    if (!proc) throw new Error('speech worker is not running');
    const id = this.nextId++;
    const pcm = Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength);
    return new Promise<RecognizedWord[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`speech worker did not answer within ${this.opts.timeoutMs} ms`));
        proc.kill('SIGKILL'); // its state is unknown now: the next request starts a fresh one
      }, this.opts.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      proc.stdin.write(`${JSON.stringify({ id, rate: sampleRate, audio: pcm.toString('base64') })}\n`);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const proc = this.proc;
    if (!proc) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => proc.kill('SIGKILL'), 2000);
      proc.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      proc.stdin.end();
    });
  }
}

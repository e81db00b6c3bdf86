import pRetry from 'p-retry';
import type { Logger } from './logger';

/**
 * How one kind of operation is retried: exponential backoff (doubling) from `minDelayMs`, each delay capped at
 * `maxDelayMs`, optionally randomised (×1 to ×2) so many instances do not retry in step.
 */
export interface RetryPolicy {
  /** Retries after the first attempt; `Infinity` retries until success, a non-retryable error or an abort. */
  retries: number;
  /** The first delay (ms). */
  minDelayMs: number;
  /** The cap on one delay (ms). */
  maxDelayMs: number;
  /** Randomise each delay so instances that failed together do not retry together. */
  jitter: boolean;
  /** Give up after this long in all (ms; default: no limit). */
  maxTimeMs?: number;
  /** Let the process exit while waiting (background work only; a start-up wait must hold the process). */
  unref?: boolean;
}

/**
 * The suite's retry policies, one per kind of wait, so that every loop with the same purpose backs off the same
 * way (they were four hand-written loops with four caps).
 */
export const retryPolicies = {
  /** Reaching the store or the broker at start: a stack starting beside us may take a while. */
  connect: { retries: Number.POSITIVE_INFINITY, minDelayMs: 500, maxDelayMs: 5000, jitter: true, maxTimeMs: 120_000 },
  /** Creating topics while other services create the same ones (leader election, "already exists"). */
  topics: { retries: 9, minDelayMs: 400, maxDelayMs: 3000, jitter: true },
  /** A consumed event's handler: bounded by the consumer's attempts, unbounded while a dependency is down. */
  handler: { retries: Number.POSITIVE_INFINITY, minDelayMs: 200, maxDelayMs: 5000, jitter: true },
  /** A write that was accepted and must not be dropped because the store blinked (group commit). */
  write: { retries: Number.POSITIVE_INFINITY, minDelayMs: 100, maxDelayMs: 5000, jitter: true },
  /** Re-publishing one document's outbox in the background (the relay's sweep is the cap). */
  outbox: { retries: Number.POSITIVE_INFINITY, minDelayMs: 2000, maxDelayMs: 30_000, jitter: true, unref: true },
} as const satisfies Record<string, RetryPolicy>;

/** What {@link retry} needs besides the operation. */
export interface RetryOptions {
  /** One of {@link retryPolicies}, possibly with fields overridden. */
  policy: RetryPolicy;
  /** What is retried, for the log line (`store connect`). */
  what: string;
  /** Logs each failed attempt that will be retried (warn), with the error's message only: never a payload. */
  logger?: Logger;
  /** Stops waiting and retrying; `retry` then rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * False for an error that retrying cannot fix: `retry` rejects with it at once. Default: every error is retried,
   * except a `TypeError` that is not a network error (a programming error; p-retry's rule).
   */
  retryable?: (err: Error, attempt: number) => boolean;
  /** Called before each wait (metrics, a custom log line). */
  onRetry?: (err: Error, attempt: number) => void | Promise<void>;
}

/** Credentials inside a connection string in an error message (`mongodb://user:pass@host`). */
const urlCredentials = /\/\/[^/\s:@]+:[^/\s@]+@/g;

/** An error's message fit for a log line: URL credentials removed, bounded length. */
function loggable(err: Error): string {
  return err.message.replace(urlCredentials, '//[redacted]@').slice(0, 500);
}

/**
 * Runs `fn` until it succeeds, retrying failures with the policy's backoff (p-retry underneath). `fn` gets the
 * attempt number (1-based). A result obtained before an abort is still returned.
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const { policy, logger, retryable, onRetry } = opts;
  let done: { value: T } | undefined;
  try {
    return await pRetry(
      async (attempt) => {
        const value = await fn(attempt);
        done = { value };
        return value;
      },
      {
        retries: policy.retries,
        minTimeout: policy.minDelayMs,
        maxTimeout: policy.maxDelayMs,
        factor: 2,
        randomize: policy.jitter,
        ...(policy.maxTimeMs !== undefined ? { maxRetryTime: policy.maxTimeMs } : {}),
        unref: policy.unref ?? false,
        ...(opts.signal ? { signal: opts.signal } : {}),
        // Called only when a retry is possible (attempts and time left, not a programming error).
        shouldRetry: async ({ error, attemptNumber, retriesLeft }) => {
          if (retryable && !retryable(error, attemptNumber)) return false;
          logger?.warn(
            { what: opts.what, attempt: attemptNumber, retriesLeft, err: loggable(error) },
            `${opts.what} failed; retrying`,
          );
          await onRetry?.(error, attemptNumber);
          return true;
        },
      },
    );
  } catch (err) {
    if (done) return done.value;
    throw err;
  }
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first; `unref` lets the process exit meanwhile. */
export function delay(ms: number, opts: { signal?: AbortSignal; unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    opts.signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(opts.signal?.reason);
    };
    const timer = setTimeout(() => {
      opts.signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (opts.unref) timer.unref();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

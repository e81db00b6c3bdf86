import { notifierError } from './errors';

const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses a duration such as `0`, `200ms`, `5s`, `30m`, `2h` or `1d` into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d{1,9})(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) throw notifierError('NOTIFIER.CONFIG', `'${text}' is not a duration (e.g. 0, 200ms, 5s, 30m, 2h)`);
  return Number(match[1]) * (unitMs[match[2] ?? 'ms'] as number);
}

/**
 * A retry schedule: `delays[i]` is the wait before attempt i+1 (the first is usually 0). A delivery
 * is dead when attempt `delays.length` fails.
 */
export interface RetrySchedule {
  readonly delays: readonly number[];
  /** Fraction of each delay randomised either way (0.2 → ±20 %). */
  readonly jitter: number;
}

/** Parses `DELIVERY_SCHEDULE` (comma-separated durations, e.g. `0,5s,5m,30m,2h,5h,10h,10h`). */
export function parseSchedule(text: string, jitter = 0.2): RetrySchedule {
  const delays = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map(parseDuration);
  if (delays.length === 0) throw notifierError('NOTIFIER.CONFIG', 'the delivery schedule names no attempt');
  if (delays.length > 50) throw notifierError('NOTIFIER.CONFIG', 'the delivery schedule allows at most 50 attempts');
  return { delays, jitter };
}

/** Total span of a schedule: how long after its first attempt a delivery can still be retried. */
export function scheduleSpanMs(schedule: RetrySchedule): number {
  return schedule.delays.reduce((sum, d) => sum + d, 0) * (1 + schedule.jitter);
}

/**
 * When the next attempt is due after `attemptsMade` attempts failed, or `null` when none is left
 * (the delivery is dead). Jitter spreads retries of many deliveries; `retryAfterMs` (from a 429 or
 * 503 `Retry-After`) is honoured as a lower bound, capped at `maxRetryAfterMs`.
 */
export function nextAttemptAt(
  schedule: RetrySchedule,
  attemptsMade: number,
  now: number,
  opts: { retryAfterMs?: number; maxRetryAfterMs?: number; random?: () => number } = {},
): number | null {
  if (attemptsMade >= schedule.delays.length) return null;
  const base = schedule.delays[attemptsMade] as number;
  const random = opts.random ?? Math.random;
  const jittered = Math.round(base * (1 + schedule.jitter * (2 * random() - 1)));
  const retryAfter = Math.min(opts.retryAfterMs ?? 0, opts.maxRetryAfterMs ?? 24 * 3_600_000);
  return now + Math.max(jittered, retryAfter, 0);
}

/** Parses a `Retry-After` header (delay in seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

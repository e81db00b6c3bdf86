import { nextAttemptAt, type RetrySchedule } from './schedule';

/** What one HTTP attempt produced: a response (any status) or no response at all. */
export type AttemptResult =
  | { kind: 'response'; status: number; latencyMs: number; retryAfterMs?: number; location?: string }
  | { kind: 'error'; error: string; latencyMs: number };

/** What becomes of a delivery after an attempt. */
export interface AttemptDecision {
  state: 'delivered' | 'failed' | 'dead';
  /** Epoch ms of the next attempt (failed only). */
  nextAttemptAt: number | null;
  /** The endpoint answered 410 Gone: nothing more is sent to it until the provider is re-registered. */
  disableEndpoint: boolean;
  status: number | null;
  error: string | null;
}

/** The error text recorded for a non-2xx response. */
export function describeStatus(status: number, location?: string): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: redirect not followed${location ? ' (Location set)' : ''}`;
  if (status === 410) return 'HTTP 410 Gone: endpoint disabled until the provider is registered again';
  return `HTTP ${status}`;
}

/**
 * The retry policy. Any 2xx is delivered. 410 Gone is final and disables the endpoint. Every other
 * outcome (no response, timeout, 3xx since redirects are not followed, 4xx, 5xx) is retried on the
 * schedule: providers fix misconfigured endpoints, and the schedule bounds the cost. A 429 or 503
 * `Retry-After` postpones the next attempt at least that long. After the last attempt: dead.
 */
export function decideAfterAttempt(
  result: AttemptResult,
  attemptsMade: number,
  schedule: RetrySchedule,
  now: number,
  random?: () => number,
): AttemptDecision {
  if (result.kind === 'response' && result.status >= 200 && result.status < 300) {
    return { state: 'delivered', nextAttemptAt: null, disableEndpoint: false, status: result.status, error: null };
  }
  const status = result.kind === 'response' ? result.status : null;
  const error = result.kind === 'response' ? describeStatus(result.status, result.location) : result.error;
  if (status === 410) return { state: 'dead', nextAttemptAt: null, disableEndpoint: true, status, error };
  const honoured = status === 429 || status === 503 ? (result as { retryAfterMs?: number }).retryAfterMs : undefined;
  const next = nextAttemptAt(schedule, attemptsMade, now, {
    ...(honoured !== undefined ? { retryAfterMs: honoured } : {}),
    ...(random ? { random } : {}),
  });
  if (next === null) return { state: 'dead', nextAttemptAt: null, disableEndpoint: false, status, error };
  return { state: 'failed', nextAttemptAt: next, disableEndpoint: false, status, error };
}

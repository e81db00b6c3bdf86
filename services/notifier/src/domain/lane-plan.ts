// The decisions of the delivery pipeline's passes, without I/O: which delivery of an interaction may go,
// whether a lane may send its next delivery now, and what waits or dies while its endpoint's breaker is open.
// The pipeline (workers/delivery.pipeline.ts) carries them out with timers, breakers and the store.

/** The provider facts that decide whether anything can be sent to it. */
export interface ProviderFacts {
  deleted?: boolean;
  endpoint?: string | null;
  disabledAt?: Date | null;
}

/** A delivery refused without an HTTP call: dead at once when `final`, else a failed attempt retried later. */
export interface Refusal {
  reason: string;
  final: boolean;
}

/** Why a delivery cannot be sent to its provider now, and whether that is final (undefined: it can be). */
export function refusalOf(p: ProviderFacts | undefined): Refusal | undefined {
  if (!p) return { reason: 'provider is not known to the notifier yet (no provider event consumed)', final: false };
  if (p.deleted) return { reason: 'provider was deleted', final: true };
  if (!p.endpoint) return { reason: 'provider has no endpoint', final: true };
  if (p.disabledAt) {
    return {
      reason: 'endpoint disabled: it answered 410 Gone; register the provider again to re-enable it',
      final: true,
    };
  }
  return undefined;
}

/** What a lane with a sendable delivery at its head does next. */
export type SendStep =
  /** POST it now. */
  | 'send'
  /** The endpoint's breaker is open (or its half-open trial is running): wait for it. */
  | 'wait-breaker'
  /** The endpoint has `ENDPOINT_CONCURRENCY` POSTs in flight: the next finishing one pumps again. */
  | 'endpoint-full'
  /** The instance has `MAX_IN_FLIGHT` POSTs in flight: the lane is starved until one finishes. */
  | 'instance-full';

/** The limits a lane's pass checks, in this order: breaker, the endpoint's concurrency, the instance's. */
export interface SendLimits {
  breakerAdmits: boolean;
  laneInFlight: number;
  endpointConcurrency: number;
  instanceInFlight: number;
  maxInFlight: number;
}

/** Whether the lane may send its head delivery now. */
export function sendStep(l: SendLimits): SendStep {
  if (!l.breakerAdmits) return 'wait-breaker';
  if (l.laneInFlight >= l.endpointConcurrency) return 'endpoint-full';
  if (l.instanceInFlight >= l.maxInFlight) return 'instance-full';
  return 'send';
}

/** The timing of a queued delivery. */
export interface Timed {
  /** When its current attempt cycle started (epoch ms): the schedule's span counts from here. */
  cycleStartedAt: number;
  /** When it may be attempted next (epoch ms). */
  nextAttemptAt: number;
}

/**
 * While an endpoint's breaker is open: deliveries whose delivery window (`spanMs` from their cycle start)
 * has ended die; the others wait until the breaker lets its next trial through (`retryAt`), never earlier
 * than they were due.
 */
export function planBreakerWait<T extends Timed>(
  ready: readonly T[],
  now: number,
  spanMs: number,
  retryAt: number,
): { expired: T[]; waiting: { delivery: T; nextAttemptAt: number }[] } {
  const expired: T[] = [];
  const waiting: { delivery: T; nextAttemptAt: number }[] = [];
  for (const d of ready) {
    if (d.cycleStartedAt + spanMs <= now) expired.push(d);
    else waiting.push({ delivery: d, nextAttemptAt: Math.max(d.nextAttemptAt, retryAt) });
  }
  return { expired, waiting };
}

/** A delivery in its interaction's chain. */
export interface Chained {
  /** Being sent, or its outcome being written: it stays the head until finished. */
  sending: boolean;
}

/**
 * A delivery joins its interaction's chain (ordered by `compare`; only the head may be sent). If it becomes
 * the head it is scheduled, and the head it displaced waits again, unless that one is already being sent,
 * in which case the newcomer follows when it finishes.
 */
export function admitToChain<T extends Chained>(
  chain: readonly T[],
  d: T,
  compare: (a: T, b: T) => number,
): { chain: T[]; schedule: T | undefined; unqueue: T | undefined } {
  const next = [...chain, d].sort(compare);
  if (next[0] !== d) return { chain: next, schedule: undefined, unqueue: undefined };
  const displaced = next[1];
  if (displaced?.sending) return { chain: next, schedule: undefined, unqueue: undefined };
  return { chain: next, schedule: d, unqueue: displaced };
}

/**
 * A finished (or lost) delivery leaves its chain; the new head is scheduled unless it is already being
 * sent or has its retry timer set.
 */
export function leaveChain<T extends Chained>(
  chain: readonly T[],
  d: T,
  hasTimer: (x: T) => boolean,
): { chain: T[]; schedule: T | undefined } {
  const next = chain.filter((x) => x !== d);
  const head = next[0];
  return { chain: next, schedule: head && !head.sending && !hasTimer(head) ? head : undefined };
}

/** A client's allowance: `rps` requests per second plus a reserve of `burst` extra that refills over burst/rps s. */
export interface RateLimit {
  rps: number;
  burst: number;
}

/** The limit that applies to an account: its override where it has one, else the configured default. */
export function effectiveRateLimit(defaults: RateLimit, override?: Partial<RateLimit> | null): RateLimit {
  const rps = override?.rps ?? defaults.rps;
  const burst = override?.burst ?? defaults.burst;
  return checkRateLimit({ rps, burst });
}

/** Validates a limit: a positive whole rate and a non-negative whole burst. */
export function checkRateLimit(limit: RateLimit): RateLimit {
  if (!Number.isInteger(limit.rps) || limit.rps < 1) throw new RangeError('rps must be a whole number of at least 1');
  if (!Number.isInteger(limit.burst) || limit.burst < 0) {
    throw new RangeError('burst must be a whole number of at least 0');
  }
  return limit;
}

/** Seconds over which the burst reserve refills at the sustained rate (at least one). */
export function burstWindowSeconds(limit: RateLimit): number {
  return Math.max(1, Math.ceil(limit.burst / limit.rps));
}

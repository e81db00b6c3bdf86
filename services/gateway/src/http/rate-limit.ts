import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { burstWindowSeconds, type RateLimit } from '../domain/rate-limit-policy';

/** The outcome of taking one request from a client's allowance, with what the RateLimit-* headers say. */
export interface RateDecision {
  allowed: boolean;
  /** Requests an idle client may make at once: rate plus burst. */
  limit: number;
  remaining: number;
  /** Seconds until the allowance grows again. */
  resetSeconds: number;
  policy: string;
}

interface Limiter {
  consumer: { consume(key: string, points: number): Promise<RateLimiterRes> };
  burst?: RateLimiterMemory;
  limit: RateLimit;
  /** The `RateLimit-Policy` header and the limit an idle client has, built once per limit, not per request. */
  policy: string;
  total: number;
}

/**
 * Per-client token-bucket-like limiting in memory (rate-limiter-flexible): `rps` requests per second, plus a
 * reserve of `burst` extra that refills over burst/rps seconds. Each gateway replica counts on its own.
 */
export class ClientRateLimiter {
  private readonly limiters = new Map<string, Limiter>();

  /** Takes one request of `key`'s allowance under `limit`. */
  async take(key: string, limit: RateLimit): Promise<RateDecision> {
    const l = this.limiterFor(limit);
    const { policy, total } = l;
    try {
      const res = await l.consumer.consume(key, 1);
      const burstLeft = l.burst ? await this.burstRemaining(l.burst, key, limit.burst) : 0;
      return {
        allowed: true,
        limit: total,
        remaining: Math.max(0, res.remainingPoints) + burstLeft,
        resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
        policy,
      };
    } catch (rej) {
      if (!(rej instanceof RateLimiterRes)) throw rej;
      return {
        allowed: false,
        limit: total,
        remaining: 0,
        resetSeconds: Math.max(1, Math.ceil(rej.msBeforeNext / 1000)),
        policy,
      };
    }
  }

  private async burstRemaining(burst: RateLimiterMemory, key: string, points: number): Promise<number> {
    const res = await burst.get(key);
    return res ? Math.max(0, res.remainingPoints) : points;
  }

  private limiterFor(limit: RateLimit): Limiter {
    const id = `${limit.rps}:${limit.burst}`;
    let l = this.limiters.get(id);
    if (!l) {
      const policy = `${limit.rps};w=1, ${limit.burst};w=${burstWindowSeconds(limit)};comment="burst"`;
      const total = limit.rps + limit.burst;
      const main = new RateLimiterMemory({ keyPrefix: `rps-${id}`, points: limit.rps, duration: 1 });
      if (limit.burst > 0) {
        const burst = new RateLimiterMemory({
          keyPrefix: `burst-${id}`,
          points: limit.burst,
          duration: burstWindowSeconds(limit),
        });
        l = { consumer: new BurstyRateLimiter(main, burst), burst, limit, policy, total };
      } else {
        l = { consumer: main, limit, policy, total };
      }
      this.limiters.set(id, l);
    }
    return l;
  }
}

/**
 * Brute-force protection of the token endpoints: every attempt counts per IP address, every failure per client
 * id (or account key); a success clears the client's failures.
 */
export class TokenAttemptLimiter {
  private readonly perIp: RateLimiterMemory;
  private readonly failures: RateLimiterMemory;

  constructor(opts: { attemptsPerMinute: number; failuresPerClient: number }) {
    this.perIp = new RateLimiterMemory({ keyPrefix: 'token-ip', points: opts.attemptsPerMinute, duration: 60 });
    this.failures = new RateLimiterMemory({
      keyPrefix: 'token-fail',
      points: opts.failuresPerClient,
      duration: 15 * 60,
    });
  }

  /** Counts an attempt from `ip`; returns seconds to wait when over the limit. */
  async attempt(ip: string): Promise<number | undefined> {
    try {
      await this.perIp.consume(ip, 1);
      return undefined;
    } catch (rej) {
      if (rej instanceof RateLimiterRes) return Math.max(1, Math.ceil(rej.msBeforeNext / 1000));
      throw rej;
    }
  }

  /** Seconds to wait when the client id is blocked after too many failures. */
  async blocked(clientId: string): Promise<number | undefined> {
    const res = await this.failures.get(clientId);
    if (res && res.remainingPoints <= 0) return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return undefined;
  }

  /** Records a failed authentication of the client id. */
  async failed(clientId: string): Promise<void> {
    await this.failures.consume(clientId, 1).catch((rej) => {
      if (!(rej instanceof RateLimiterRes)) throw rej;
    });
  }

  /** Clears the client's failures after a success. */
  async succeeded(clientId: string): Promise<void> {
    await this.failures.delete(clientId);
  }
}

import { decideAfterAttempt } from '../../src/domain/outcome';
import { parseSchedule } from '../../src/domain/schedule';

const schedule = parseSchedule('0,1s,2s', 0);
const now = 10_000;

describe('retry policy after an attempt', () => {
  it('treats any 2xx as delivered', () => {
    for (const status of [200, 201, 202, 204, 299]) {
      expect(decideAfterAttempt({ kind: 'response', status, latencyMs: 5 }, 1, schedule, now)).toMatchObject({
        state: 'delivered',
        nextAttemptAt: null,
        error: null,
      });
    }
  });

  it('disables the endpoint on 410 Gone and kills the delivery', () => {
    expect(decideAfterAttempt({ kind: 'response', status: 410, latencyMs: 5 }, 1, schedule, now)).toMatchObject({
      state: 'dead',
      disableEndpoint: true,
      status: 410,
    });
  });

  it('retries 5xx, 4xx, 3xx and transport errors on the schedule, then dead', () => {
    for (const status of [500, 502, 400, 401, 404, 302]) {
      expect(decideAfterAttempt({ kind: 'response', status, latencyMs: 5 }, 1, schedule, now)).toMatchObject({
        state: 'failed',
        nextAttemptAt: now + 1000,
        disableEndpoint: false,
      });
    }
    expect(decideAfterAttempt({ kind: 'response', status: 302, latencyMs: 5 }, 1, schedule, now).error).toMatch(
      /redirect not followed/,
    );
    const err = decideAfterAttempt({ kind: 'error', error: 'connection refused', latencyMs: 1 }, 2, schedule, now);
    expect(err).toMatchObject({
      state: 'failed',
      nextAttemptAt: now + 2000,
      status: null,
      error: 'connection refused',
    });
    expect(decideAfterAttempt({ kind: 'response', status: 500, latencyMs: 5 }, 3, schedule, now)).toMatchObject({
      state: 'dead',
      disableEndpoint: false,
    });
  });

  it('honours Retry-After on 429 and 503 only', () => {
    const r429 = decideAfterAttempt(
      { kind: 'response', status: 429, latencyMs: 1, retryAfterMs: 60_000 },
      1,
      schedule,
      now,
    );
    expect(r429.nextAttemptAt).toBe(now + 60_000);
    const r503 = decideAfterAttempt(
      { kind: 'response', status: 503, latencyMs: 1, retryAfterMs: 5000 },
      1,
      schedule,
      now,
    );
    expect(r503.nextAttemptAt).toBe(now + 5000);
    const r500 = decideAfterAttempt(
      { kind: 'response', status: 500, latencyMs: 1, retryAfterMs: 60_000 },
      1,
      schedule,
      now,
    );
    expect(r500.nextAttemptAt).toBe(now + 1000);
  });
});

import {
  nextAttemptAt,
  parseDuration,
  parseRetryAfter,
  parseSchedule,
  scheduleSpanMs,
} from '../../src/domain/schedule';

describe('delivery schedule', () => {
  it('parses durations with units', () => {
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('200ms')).toBe(200);
    expect(parseDuration('5s')).toBe(5000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('10h')).toBe(36_000_000);
    expect(() => parseDuration('5 minutes')).toThrow(/not a duration/);
    expect(() => parseDuration('-1s')).toThrow(/not a duration/);
  });

  it('parses the default schedule into eight attempts', () => {
    const s = parseSchedule('0,5s,5m,30m,2h,5h,10h,10h');
    expect(s.delays).toEqual([0, 5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(() => parseSchedule(' , ')).toThrow(/names no attempt/);
  });

  it('gives the next attempt time with bounded jitter, and none after the last attempt', () => {
    const s = parseSchedule('0,5s,5m', 0.2);
    const now = 1_000_000;
    expect(nextAttemptAt(s, 1, now, { random: () => 0.5 })).toBe(now + 5000);
    expect(nextAttemptAt(s, 1, now, { random: () => 0 })).toBe(now + 4000);
    expect(nextAttemptAt(s, 1, now, { random: () => 1 })).toBe(now + 6000);
    expect(nextAttemptAt(s, 2, now, { random: () => 0.5 })).toBe(now + 300_000);
    expect(nextAttemptAt(s, 3, now)).toBeNull();
  });

  it('honours Retry-After as a lower bound, capped', () => {
    const s = parseSchedule('0,1s,1s', 0);
    expect(nextAttemptAt(s, 1, 0, { retryAfterMs: 30_000 })).toBe(30_000);
    expect(nextAttemptAt(s, 1, 0, { retryAfterMs: 500 })).toBe(1000);
    expect(nextAttemptAt(s, 1, 0, { retryAfterMs: 10_000_000, maxRetryAfterMs: 60_000 })).toBe(60_000);
  });

  it('parses Retry-After seconds and HTTP dates', () => {
    const now = Date.parse('2024-05-01T08:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 01 May 2024 08:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('computes the span of a schedule including the jitter', () => {
    expect(scheduleSpanMs(parseSchedule('0,1s,2s', 0.5))).toBe(4500);
  });
});

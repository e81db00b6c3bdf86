import { createLogger } from '../src/logger';
import { delay, type RetryPolicy, retry } from '../src/retry';

const quick: RetryPolicy = { retries: 5, minDelayMs: 1, maxDelayMs: 4, jitter: false };

/** An operation that fails `failures` times, then returns `ok`; counts its calls. */
function flaky(failures: number, make: (n: number) => Error = (n) => new Error(`boom ${n}`)) {
  const calls: number[] = [];
  const fn = async (attempt: number) => {
    calls.push(attempt);
    if (calls.length <= failures) throw make(calls.length);
    return 'ok';
  };
  return { fn, calls };
}

/** The delays `retry` waited, read from its timers (the real ones still run). */
function watchDelays(): { delays: number[]; restore: () => void } {
  const delays: number[] = [];
  const real = global.setTimeout;
  const spy = jest.spyOn(global, 'setTimeout').mockImplementation(((cb: () => void, ms?: number) => {
    delays.push(ms ?? 0);
    return real(cb, ms);
  }) as typeof setTimeout);
  return { delays, restore: () => spy.mockRestore() };
}

describe('retry', () => {
  it('retries until success, passing the attempt number, and returns the result', async () => {
    const { fn, calls } = flaky(3);
    await expect(retry(fn, { policy: quick, what: 'op' })).resolves.toBe('ok');
    expect(calls).toEqual([1, 2, 3, 4]);
  });

  it('makes 1 + retries attempts, then rejects with the last error', async () => {
    const { fn, calls } = flaky(100);
    await expect(retry(fn, { policy: { ...quick, retries: 2 }, what: 'op' })).rejects.toThrow('boom 3');
    expect(calls).toHaveLength(3);
  });

  it('doubles the delay from minDelayMs and caps each delay at maxDelayMs', async () => {
    const { fn } = flaky(5);
    const watch = watchDelays();
    try {
      await retry(fn, { policy: quick, what: 'op' });
    } finally {
      watch.restore();
    }
    expect(watch.delays).toEqual([1, 2, 4, 4, 4]);
  });

  it('with jitter, keeps each delay between the plain delay and twice it, and under the cap', async () => {
    const { fn } = flaky(5);
    const watch = watchDelays();
    try {
      await retry(fn, { policy: { ...quick, minDelayMs: 2, maxDelayMs: 10, jitter: true }, what: 'op' });
    } finally {
      watch.restore();
    }
    const plain = [2, 4, 8, 10, 10];
    watch.delays.forEach((d, i) => {
      expect(d).toBeGreaterThanOrEqual(plain[i] as number);
      expect(d).toBeLessThanOrEqual(Math.min(2 * (plain[i] as number), 10));
    });
  });

  it('stops at once on an error the caller marks non-retryable', async () => {
    class Fatal extends Error {}
    const { fn, calls } = flaky(100, (n) => (n === 2 ? new Fatal('bad input') : new Error('blip')));
    const seen: number[] = [];
    await expect(
      retry(fn, {
        policy: quick,
        what: 'op',
        retryable: (err) => !(err instanceof Fatal),
        onRetry: (_e, n) => void seen.push(n),
      }),
    ).rejects.toBeInstanceOf(Fatal);
    expect(calls).toEqual([1, 2]);
    expect(seen).toEqual([1]); // onRetry only before a wait that happens
  });

  it('does not retry a programming error (TypeError)', async () => {
    const { fn, calls } = flaky(100, () => new TypeError('x is undefined'));
    await expect(retry(fn, { policy: quick, what: 'op' })).rejects.toBeInstanceOf(TypeError);
    expect(calls).toHaveLength(1);
  });

  it('stops waiting when aborted and rejects with the signal reason', async () => {
    const controller = new AbortController();
    const { fn, calls } = flaky(100);
    const running = retry(fn, {
      policy: { ...quick, retries: Number.POSITIVE_INFINITY, minDelayMs: 60_000, maxDelayMs: 60_000 },
      what: 'op',
      signal: controller.signal,
    });
    controller.abort(new Error('stopped'));
    await expect(running).rejects.toThrow('stopped');
    expect(calls).toHaveLength(1);
  });

  it('returns a result obtained before the abort', async () => {
    const controller = new AbortController();
    const result = retry(
      async () => {
        controller.abort(new Error('stopped'));
        return 42;
      },
      { policy: quick, what: 'op', signal: controller.signal },
    );
    await expect(result).resolves.toBe(42);
  });

  it('gives up when maxTimeMs has passed', async () => {
    const { fn, calls } = flaky(1000);
    await expect(
      retry(fn, {
        policy: { retries: Number.POSITIVE_INFINITY, minDelayMs: 5, maxDelayMs: 5, jitter: false, maxTimeMs: 30 },
        what: 'op',
      }),
    ).rejects.toThrow(/boom/);
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.length).toBeLessThan(20);
  });

  it('logs each retry with the message only, credentials in URLs removed', async () => {
    const lines: string[] = [];
    const logger = createLogger('retry-test', 'warn', {
      write: (l: string) => lines.push(l),
    } as unknown as NodeJS.WritableStream);
    const { fn } = flaky(1, () => new Error('connect failed: mongodb://app:s3cret@db:27017/x'));
    await retry(fn, { policy: quick, what: 'store connect', logger });
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] as string);
    expect(line).toMatchObject({ what: 'store connect', attempt: 1, msg: 'store connect failed; retrying' });
    expect(lines[0]).not.toContain('s3cret');
    expect(line.err).toContain('//[redacted]@db:27017');
  });
});

describe('delay', () => {
  it('waits, and rejects at once on abort', async () => {
    await expect(delay(1)).resolves.toBeUndefined();
    const controller = new AbortController();
    const waiting = delay(60_000, { signal: controller.signal, unref: true });
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
  });
});

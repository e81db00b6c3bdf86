import perfHooks from 'node:perf_hooks';
import { createMetrics } from '../src/metrics';

const metricValue = (text: string, name: string): number => {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`${name} not exported`);
  return Number(m[1]);
};

describe('service metrics', () => {
  it('do not sample the event loop on a timer (the idle cost was ~190 wake-ups a second)', async () => {
    const monitor = jest.spyOn(perfHooks, 'monitorEventLoopDelay');
    try {
      const metrics = createMetrics('idle');
      // prom-client creates its sampler whatever the settings; its period is the longest a timer can be.
      expect(monitor).toHaveBeenCalled();
      for (const [options] of monitor.mock.calls) expect(options?.resolution).toBeGreaterThanOrEqual(2 ** 31 - 1);
      const text = await metrics.registry.metrics();
      expect(text).not.toMatch(/^nodejs_eventloop_lag_p99_seconds/m);
      expect(metricValue(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    } finally {
      monitor.mockRestore();
    }
  });

  it('count the time the event loop was busy, so its rate is the loop utilization', async () => {
    const metrics = createMetrics('busy');
    const before = metricValue(await metrics.registry.metrics(), 'nodejs_eventloop_busy_seconds_total');
    await new Promise((r) => setTimeout(r, 5)); // a new loop iteration: libuv accounts per iteration
    const start = Date.now();
    while (Date.now() - start < 200) {
      // busy: the loop does not get to wait
    }
    await new Promise((r) => setTimeout(r, 5));
    const after = metricValue(await metrics.registry.metrics(), 'nodejs_eventloop_busy_seconds_total');
    expect(after - before).toBeGreaterThanOrEqual(0.19);
    expect(after - before).toBeLessThan(5);
  });
});

import { throughout } from '../src/poll';

describe('throughout', () => {
  it('keeps probing for the whole window while the condition holds', async () => {
    let probes = 0;
    const t0 = Date.now();
    await throughout(() => ++probes, { forMs: 300, intervalMs: 50, accept: () => true });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    expect(probes).toBeGreaterThanOrEqual(4);
  });

  it('fails at the first value refused, naming it, without waiting out the window', async () => {
    let n = 0;
    const t0 = Date.now();
    await expect(
      throughout(() => ++n, { forMs: 10_000, intervalMs: 20, accept: (v) => v < 3, what: 'fewer than three' }),
    ).rejects.toThrow('fewer than three no longer held; value: 3');
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});

/**
 * Polls until `probe` returns a value that `accept` takes (default: anything not undefined/false)
 * or throws no more; fails with the last error or value when the deadline passes. No fixed sleeps.
 */
export async function eventually<T>(
  probe: () => Promise<T> | T,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string; accept?: (v: T) => boolean } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15000);
  const accept = opts.accept ?? ((v: T) => v !== undefined && v !== null && (v as unknown) !== false);
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (accept(value)) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(
        `timed out after ${opts.timeoutMs ?? 15000} ms waiting for ${opts.what ?? 'condition'}; last: ${detail}`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}

/**
 * Probes for `forMs` (every `intervalMs`) and fails at the first value `accept` refuses (or probe that throws): for
 * a check that something does not happen, which means something only once the time it would take has passed.
 */
export async function throughout<T>(
  probe: () => Promise<T> | T,
  opts: { forMs: number; intervalMs?: number; what?: string; accept: (v: T) => boolean },
): Promise<void> {
  const end = Date.now() + opts.forMs;
  for (;;) {
    const value = await probe();
    if (!opts.accept(value))
      throw new Error(`${opts.what ?? 'condition'} no longer held; value: ${JSON.stringify(value)}`);
    if (Date.now() >= end) return;
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 200));
  }
}

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

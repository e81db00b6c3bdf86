import { eventually } from '@cc/testing';

/** `eventually` for probes that answer `undefined` (or null/false) until the thing exists: resolves with the thing. */
export async function until<T>(
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string },
): Promise<T> {
  return (await eventually(probe, opts)) as T;
}

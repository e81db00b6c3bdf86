import { limits } from '@cc/contracts';
import type { FieldError } from '@cc/kit/errors';

/** A validated summaries window (epoch ms). */
export interface SummaryWindow {
  from: number;
  to: number;
  revisedSince?: number;
}

/**
 * Checks the window rules the schema cannot express: end after start, at most 31 days. Returns the
 * window or every violation with its query pointer.
 */
export function parseWindow(
  q: { start: string; end?: string; revisedSince?: string },
  now: number,
): { ok: true; window: SummaryWindow } | { ok: false; errors: FieldError[] } {
  const from = Date.parse(q.start);
  const to = q.end === undefined ? now : Date.parse(q.end);
  const errors: FieldError[] = [];
  if (to <= from) errors.push({ pointer: '/query/end', message: 'end must be after start' });
  else if (to - from > limits.maxWindowDays * 86_400_000)
    errors.push({ pointer: '/query/end', message: `the window may span at most ${limits.maxWindowDays} days` });
  if (errors.length) return { ok: false, errors };
  return {
    ok: true,
    window: { from, to, ...(q.revisedSince !== undefined ? { revisedSince: Date.parse(q.revisedSince) } : {}) },
  };
}

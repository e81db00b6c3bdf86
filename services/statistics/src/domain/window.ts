import { limits } from '@cc/contracts';
import { AppError } from '@cc/kit/errors';
import { hourMs } from './time';

/** Longest window of the statistics API (ARCHITECTURE §2). */
export const maxWindowMs = limits.maxWindowDays * 24 * hourMs;
/** Longest start+end window of the v0 endpoints. */
export const maxV0WindowMs = limits.maxV0WindowHours * hourMs;

/**
 * The [start, end) window of a query: `end` defaults to now, must be after `start` and at most `maxMs` after it;
 * violations are 400s pointing at the parameter.
 */
export function windowOf(q: { start: string; end?: string }, now: number, maxMs: number, label: string) {
  const start = Date.parse(q.start);
  const end = q.end === undefined ? now : Date.parse(q.end);
  const fail = (message: string) =>
    new AppError('REQUEST.VALIDATION', `1 violation(s) of the request rules: ${message}`, [
      { pointer: q.end === undefined ? '/query/start' : '/query/end', message },
    ]);
  if (end <= start) throw fail(q.end === undefined ? 'start must be in the past' : 'end must be after start');
  if (end - start > maxMs) throw fail(`the window from start to end must not exceed ${label}`);
  return { start, end };
}

/** One page of `items` and the envelope's meta (1-based pages). */
export function pageOf<T>(items: T[], page: number, limit: number) {
  const slice = items.slice((page - 1) * limit, page * limit);
  return {
    meta: { page, count: slice.length, pageCount: Math.ceil(items.length / limit), totalCount: items.length },
    items: slice,
  };
}

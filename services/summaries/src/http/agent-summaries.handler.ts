import { limits } from '@cc/contracts';
import { principalOf } from '@cc/kit';
import type { RequestHandler } from 'express';
import type { SummaryBook } from '../domain/book';
import { summariesError } from '../domain/errors';
import type { AccountFlags } from '../domain/flags';
import { parseWindow } from '../domain/window';

/** What the summaries handler needs. */
export interface SummariesDeps {
  book: SummaryBook;
  flags: AccountFlags;
  /** The consumer's watermark (epoch ms; null before anything was read). */
  upTo: () => number | null;
  now?: () => number;
}

/**
 * GET /stats/wfm/agent-summaries: one page of the account's buckets overlapping the window, newest
 * first, with open activities counted up to `upTo`. Served from memory (the consumer keeps it).
 */
export function agentSummariesHandler(deps: SummariesDeps): RequestHandler {
  return (req, res) => {
    const { accountId } = principalOf(res);
    if (!deps.flags.enabled(accountId))
      throw summariesError('SUMMARIES.FEATURE_DISABLED', 'Agent summaries are not enabled for this account');
    const q = req.query as unknown as {
      start: string;
      end?: string;
      agentId?: string;
      revisedSince?: string;
      page: number;
      limit: number;
    };
    const now = (deps.now ?? Date.now)();
    const parsed = parseWindow(q, now);
    if (!parsed.ok)
      throw summariesError(
        'REQUEST.VALIDATION',
        `${parsed.errors.length} violation(s) of the request rules`,
        parsed.errors,
      );
    const { window } = parsed;
    const upTo = Math.min(deps.upTo() ?? 0, window.to, now);
    deps.book.materialize(accountId, upTo);
    const { items, total } = deps.book.query(accountId, {
      ...window,
      ...(q.agentId !== undefined ? { agentId: q.agentId } : {}),
      page: q.page,
      limit: q.limit,
    });
    res.json({
      meta: { page: q.page, count: items.length, pageCount: Math.ceil(total / q.limit), totalCount: total },
      items,
      upTo: new Date(upTo).toISOString(),
      cadence: limits.cadenceMinutes,
    });
  };
}

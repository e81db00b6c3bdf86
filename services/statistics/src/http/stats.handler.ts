import { principalOf } from '@cc/kit';
import type { RequestHandler } from 'express';
import { toActivityView } from '../domain/agent-activity';
import { toRecordView } from '../domain/interaction-record';
import { iso } from '../domain/time';
import { maxWindowMs, pageOf, windowOf } from '../domain/window';
import type { Include, StatisticsRepository } from '../store/statistics.repository';

interface WindowQuery {
  start: string;
  end?: string;
  include: Include;
  page: number;
  limit: number;
}

/** GET /stats/agent-activities: the account's activities in the window, oldest first, paged, with `upTo`. */
export function agentActivitiesHandler(repo: StatisticsRepository, now: () => number): RequestHandler {
  return async (_req, res) => {
    const { accountId } = principalOf(res);
    const q = _req.query as unknown as WindowQuery & { agentId?: string; type?: string };
    const at = now();
    const w = windowOf(q, at, maxWindowMs, '31 days');
    const filter = { ...(q.agentId ? { agentId: q.agentId } : {}), ...(q.type ? { type: q.type } : {}) };
    const { items, total } = await repo.activityPage(accountId, { ...w, include: q.include }, filter, q.page, q.limit);
    res.json({
      meta: { page: q.page, count: items.length, pageCount: Math.ceil(total / q.limit), totalCount: total },
      items: items.map((i) => toActivityView(i, at)),
      upTo: iso(Math.min(w.end, at)),
    });
  };
}

/** GET /stats/interactions: the account's interaction records in the window, oldest first, paged, with `upTo`. */
export function interactionsHandler(repo: StatisticsRepository, now: () => number): RequestHandler {
  return async (req, res) => {
    const { accountId } = principalOf(res);
    const q = req.query as unknown as WindowQuery;
    const at = now();
    const w = windowOf(q, at, maxWindowMs, '31 days');
    const records = await repo.interactions(accountId, { ...w, include: q.include });
    const page = pageOf(records, q.page, q.limit);
    res.json({ ...page, items: page.items.map(toRecordView), upTo: iso(Math.min(w.end, at)) });
  };
}

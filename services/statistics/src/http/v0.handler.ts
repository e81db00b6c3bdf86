import { limits, type V0Deprecation, type V0Endpoint, v0DeprecationHeaders } from '@cc/contracts';
import { AppError, principalOf } from '@cc/kit';
import type { RequestHandler } from 'express';
import { hourMs } from '../domain/time';
import { toV0AgentStates, toV0InboundCalls, toV0OutboundCalls } from '../domain/v0-records';
import { maxV0WindowMs, windowOf } from '../domain/window';
import type { StatisticsRepository } from '../store/statistics.repository';

/** How far back `latest=true` looks for each agent's or call's latest record. */
export const latestLookbackMs = limits.maxV0WindowHours * hourMs;

/**
 * Marks every v0 response (errors too) as deprecated: `Deprecation` (RFC 9745, a structured date), `Sunset`
 * (RFC 8594, an HTTP date) and `Link` to the replacement and to the documentation (the contract's one definition,
 * which the gateway also uses for the answers it gives itself on /v0 paths).
 */
export function deprecationHeaders(name: V0Endpoint, d: V0Deprecation): RequestHandler {
  const headers = v0DeprecationHeaders(name, d);
  return (_req, res, next) => {
    for (const [header, value] of headers) res.setHeader(header, value);
    next();
  };
}

/** A v0 token is valid only on the /v0 paths of the account key it was issued for. */
export const sameAccountKey: RequestHandler = (req, res, next) => {
  if (principalOf(res).clientId !== req.params.accountKey) {
    return next(new AppError('AUTH.FORBIDDEN', 'The token was issued for another account key'));
  }
  next();
};

interface V0Query {
  interval?: number;
  latest?: true;
  start?: string;
  end?: string;
}

function selection(q: V0Query, now: number) {
  if (q.interval !== undefined) return { start: now - q.interval * 60_000, end: now, latest: false };
  if (q.latest) return { start: now - latestLookbackMs, end: now, latest: true };
  return {
    ...windowOf({ start: q.start as string, end: q.end as string }, now, maxV0WindowMs, '25 hours'),
    latest: false,
  };
}

/** Keeps the last row per key (rows are oldest first). */
function lastPer<T>(rows: T[], key: (r: T) => string): T[] {
  const last = new Map<string, T>();
  for (const r of rows) last.set(key(r), r);
  return [...last.values()];
}

const inside = (iso: string, w: { start: number; end: number }) => {
  const t = Date.parse(iso);
  return t >= w.start && t < w.end;
};

/** GET /v0/{accountKey}/statistics/{name}: the v0 records of the selection, from the same data as the current API. */
export function v0Handler(name: V0Endpoint, repo: StatisticsRepository, now: () => number): RequestHandler {
  return async (req, res) => {
    const { accountId } = principalOf(res);
    const at = now();
    const w = selection(req.query as unknown as V0Query, at);
    const cap = <T>(rows: T[]) => rows.slice(0, limits.maxPageLimit);
    if (name === 'agentstates') {
      let stats = toV0AgentStates(await repo.activities(accountId, { ...w, include: 'Started' }), at);
      if (w.latest) stats = lastPer(stats, (s) => s.agentId);
      stats = cap(stats);
      return void res.json({ count: stats.length, stats });
    }
    const records = await repo.interactions(accountId, { ...w, include: 'StartedOrEnded' });
    let calls: { callGuid: string }[] =
      name === 'outboundcalls'
        ? toV0OutboundCalls(records).filter((c) => inside(c.callStartedAt, w))
        : toV0InboundCalls(records).filter((c) => inside(c.stateChangedAt, w));
    if (w.latest) calls = lastPer(calls, (c) => c.callGuid);
    calls = cap(calls);
    res.json({ count: calls.length, calls });
  };
}

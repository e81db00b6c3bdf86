import type { SuiteApi } from './api';
import type { Engine } from './engine';
import type { WebhookReceiver } from './receiver';
import { checkNotifications, type NotificationCheck } from './webhook';

/** Where the suite's own numbers agree or disagree with what the simulator did. */
export interface CrossChecks {
  notifications: NotificationCheck & { badSignatures: number; badHeaders: number };
  statistics: { expected: number; found: number; missing: string[]; error?: string };
  summaries: {
    enabled: boolean;
    upTo?: string;
    answeredBySimulator: number;
    answeredInSummaries: number;
    disagreements: string[];
    note?: string;
    error?: string;
  };
  analysis: { uploaded: number; statuses: Record<string, number>; error?: string };
  disagreements: string[];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const quarter = 15 * 60_000;

/** The notifications the run must have produced: one AssignToAgent per accepted offer, one Release per call an agent ever had. */
export function expectedNotifications(engine: Engine): Map<string, number> {
  const want = new Map<string, number>();
  for (const call of engine.calls) {
    if (!call.interactionId || call.assignments.length === 0) continue;
    want.set(`AssignToAgent ${call.interactionId}`, call.assignments.length);
    want.set(`Release ${call.interactionId}`, 1);
  }
  return want;
}

/** Runs every cross-check, waiting (bounded) for the asynchronous parts of the suite to catch up. */
export async function crossCheck(
  api: SuiteApi,
  engine: Engine,
  receiver: WebhookReceiver,
  opts: { timeoutMs: number; summariesEnabled: boolean; log: (line: string) => void },
): Promise<CrossChecks> {
  const deadline = Date.now() + opts.timeoutMs;
  const ours = new Set(engine.byInteraction.keys());
  const want = expectedNotifications(engine);
  let notifications = checkNotifications(want, []);
  let rounds = 0;
  for (;;) {
    const arrivals = receiver.arrivals.filter((a) => ours.has(a.item.objectid));
    notifications = checkNotifications(want, arrivals);
    if (notifications.missing.length === 0 || Date.now() > deadline) break;
    if (++rounds % 5 === 1) opts.log(`waiting for ${notifications.missing.length} notification(s)`);
    await sleep(2000);
  }

  const placed = engine.calls.filter((c) => c.interactionId).map((c) => c.interactionId as string);
  const statistics: CrossChecks['statistics'] = { expected: placed.length, found: 0, missing: [] };
  const since = new Date(engine.startedAt - 60_000).toISOString();
  for (;;) {
    try {
      const items = await engine_stats(api, since);
      const guids = new Set(items);
      statistics.missing = placed.filter((id) => !guids.has(id));
      statistics.found = placed.length - statistics.missing.length;
      delete statistics.error;
    } catch (err) {
      statistics.error = (err as Error).message;
    }
    if (statistics.missing.length === 0 && !statistics.error) break;
    if (Date.now() > deadline) break;
    if (++rounds % 5 === 1) opts.log(`waiting for ${statistics.missing.length} interaction record(s) in statistics`);
    await sleep(3000);
  }

  const summaries: CrossChecks['summaries'] = {
    enabled: opts.summariesEnabled,
    answeredBySimulator: 0,
    answeredInSummaries: 0,
    disagreements: [],
  };
  if (opts.summariesEnabled) {
    const byAgent = new Map<string, number>();
    for (const c of engine.calls)
      for (const a of c.assignments) byAgent.set(a.agentId, (byAgent.get(a.agentId) ?? 0) + 1);
    summaries.answeredBySimulator = [...byAgent.values()].reduce((a, b) => a + b, 0);
    const start = Math.floor(engine.startedAt / quarter) * quarter;
    const lastAction = Math.max(...engine.calls.map((c) => c.releasedAt ?? 0), engine.startedAt);
    const ids = new Set(engine.agents.map((a) => a.agentId));
    for (;;) {
      try {
        const { upTo, answered } = await summaryAnswers(api, new Date(start).toISOString(), ids);
        summaries.upTo = upTo;
        summaries.answeredInSummaries = [...answered.values()].reduce((a, b) => a + b, 0);
        summaries.disagreements = [];
        for (const [agentId, n] of byAgent) {
          const got = answered.get(agentId) ?? 0;
          if (got < n) summaries.disagreements.push(`agent ${agentId}: ${got} Answered in summaries, ${n} simulated`);
        }
        delete summaries.error;
        if (summaries.disagreements.length === 0 && Date.parse(upTo) >= lastAction) break;
      } catch (err) {
        summaries.error = (err as Error).message;
      }
      if (Date.now() > deadline) break;
      if (++rounds % 5 === 1) opts.log(`waiting for agent summaries (upTo ${summaries.upTo ?? '-'})`);
      await sleep(3000);
    }
    if (summaries.answeredInSummaries > summaries.answeredBySimulator && start < engine.startedAt) {
      summaries.note =
        'more Answered in summaries than simulated: the first 15-minute bucket also holds activity of these agents from before this run';
    }
  }

  const uploaded = engine.calls.filter((c) => c.recordingStatus === 202 && c.interactionId);
  const analysis: CrossChecks['analysis'] = { uploaded: uploaded.length, statuses: {} };
  try {
    for (let i = 0; i < uploaded.length; i += 50) {
      const guids = uploaded.slice(i, i + 50).map((c) => c.interactionId as string);
      const res = await api.call<{ status?: string }[]>('interaction-content:read', {
        method: 'GET',
        path: `/conversation-analyzer/interactions?calls=${guids.join(',')}`,
        op: 'analysis',
      });
      for (const item of res.body) {
        const s = item.status ?? 'unknown';
        analysis.statuses[s] = (analysis.statuses[s] ?? 0) + 1;
      }
    }
  } catch (err) {
    analysis.error = (err as Error).message;
  }

  const disagreements: string[] = [];
  if (notifications.missing.length) disagreements.push(`${notifications.missing.length} notification(s) missing`);
  if (notifications.doubled.length)
    disagreements.push(`${notifications.doubled.length} notification(s) sent twice under different webhook-ids`);
  if (notifications.unexpected.length)
    disagreements.push(`${notifications.unexpected.length} unexpected notification(s)`);
  if (receiver.badSignatures) disagreements.push(`${receiver.badSignatures} POST(s) with a bad signature`);
  if (statistics.missing.length || statistics.error) {
    disagreements.push(
      `${statistics.missing.length} call(s) missing from statistics${statistics.error ? ` (${statistics.error})` : ''}`,
    );
  }
  if (summaries.disagreements.length || summaries.error) {
    disagreements.push(
      `agent summaries disagree for ${summaries.disagreements.length} agent(s)${summaries.error ? ` (${summaries.error})` : ''}`,
    );
  }
  return {
    notifications: { ...notifications, badSignatures: receiver.badSignatures, badHeaders: receiver.badHeaders },
    statistics,
    summaries,
    analysis,
    disagreements,
  };
}

async function engine_stats(api: SuiteApi, since: string): Promise<string[]> {
  const items = await api.all<{ guid: string }>(
    'stats',
    `/stats/interactions?start=${encodeURIComponent(since)}&include=StartedOrEnded`,
  );
  return items.map((i) => i.guid);
}

async function summaryAnswers(
  api: SuiteApi,
  start: string,
  agentIds: Set<string>,
): Promise<{ upTo: string; answered: Map<string, number> }> {
  const answered = new Map<string, number>();
  let upTo = '';
  for (let page = 1; ; page++) {
    const res = await api.call<{
      items: { agentId: string; interactions: { offered: { type: string; count: number }[] } }[];
      meta: { pageCount: number };
      upTo: string;
    }>('stats', {
      method: 'GET',
      path: `/stats/wfm/agent-summaries?start=${encodeURIComponent(start)}&cadence=15&page=${page}&limit=1000`,
      op: 'GET /stats/wfm/agent-summaries',
    });
    upTo = res.body.upTo;
    for (const item of res.body.items) {
      if (!agentIds.has(item.agentId)) continue;
      const n = item.interactions.offered.find((o) => o.type === 'Answered')?.count ?? 0;
      answered.set(item.agentId, (answered.get(item.agentId) ?? 0) + n);
    }
    if (page >= res.body.meta.pageCount || res.body.items.length === 0) break;
  }
  return { upTo, answered };
}

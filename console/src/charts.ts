import type { AgentSummary } from '@cc/contracts';

/** One coloured part of a stacked bar. */
export interface BarSegment {
  label: string;
  seconds: number;
  /** Offset from the bar's base in seconds (sum of the segments below). */
  from: number;
}

/** One 15-minute bar of one agent. */
export interface SummaryBar {
  timestamp: string;
  revision: number;
  /** Handle time by state, stacked (Ringing, Connected, HeldExternalParty, Wrap). */
  handle: BarSegment[];
  /** Presence time by state, stacked (Ready, Away, ExtendedAway, LoggedOut). */
  presence: BarSegment[];
  /** The period was revised by late data (see {@link watchRevisions}). */
  revised: boolean;
}

/** Bars of one agent, in time order. */
export interface AgentBars {
  agentId: string;
  bars: SummaryBar[];
}

/** Fixed stacking order, so colours and legend match across bars. */
export const handleStates = ['Ringing', 'Connected', 'HeldExternalParty', 'Wrap'] as const;
/** Fixed stacking order of presence states. */
export const presenceStates = ['Ready', 'Away', 'ExtendedAway', 'LoggedOut'] as const;

function stack(order: readonly string[], entries: { type: string; totalTime: number }[]): BarSegment[] {
  let from = 0;
  return order.map((label) => {
    const seconds = entries.filter((e) => e.type === label).reduce((s, e) => s + e.totalTime, 0);
    const seg = { label, seconds, from };
    from += seconds;
    return seg;
  });
}

/** The key of one agent's period. */
export const periodKey = (s: Pick<AgentSummary, 'agentId' | 'timestamp'>): string => `${s.agentId} ${s.timestamp}`;

/** What the Workforce page remembers between fetches, to spot late data. */
export interface RevisionWatch {
  /** `upTo` of the previous response: everything before it had been aggregated then. */
  upTo?: string;
  /** Revision of each period at the previous fetch. */
  seen: Map<string, number>;
  /** Periods found revised by late data so far. */
  late: Set<string>;
}

/**
 * Records a fresh response: a period that had already ended by the previous response's `upTo` and that now
 * has a higher revision (or appears for the first time) was changed by a late event. The contract's revision
 * grows with every event, including those inside a running period, so revision > 1 alone says nothing.
 */
export function watchRevisions(watch: RevisionWatch, items: AgentSummary[], upTo: string | undefined): void {
  const before = watch.upTo ? Date.parse(watch.upTo) : undefined;
  for (const s of items) {
    const key = periodKey(s);
    const ended = Date.parse(s.timestamp) + 15 * 60_000;
    const previous = watch.seen.get(key);
    if (before !== undefined && ended <= before && (previous === undefined || s.revision > previous)) {
      watch.late.add(key);
    }
    watch.seen.set(key, s.revision);
  }
  if (upTo) watch.upTo = upTo;
}

/** Groups agent summaries into stacked bars per agent, sorted by agent then time; `late` marks revised periods. */
export function summaryBars(items: AgentSummary[], late: ReadonlySet<string> = new Set()): AgentBars[] {
  const byAgent = new Map<string, SummaryBar[]>();
  for (const s of items) {
    const bars = byAgent.get(s.agentId) ?? [];
    bars.push({
      timestamp: s.timestamp,
      revision: s.revision,
      handle: stack(handleStates, s.interactions.handleTime),
      presence: stack(presenceStates, s.presence.states),
      revised: late.has(periodKey(s)),
    });
    byAgent.set(s.agentId, bars);
  }
  return [...byAgent.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([agentId, bars]) => ({ agentId, bars: bars.sort((a, b) => a.timestamp.localeCompare(b.timestamp)) }));
}

/** A call's time split as proportions (0..1) of its parts, largest first; empty when the total is 0. */
export function timeSplit(parts: Record<string, number>): { label: string; seconds: number; share: number }[] {
  const total = Object.values(parts).reduce((s, v) => s + Math.max(0, v), 0);
  if (!total) return [];
  return Object.entries(parts)
    .map(([label, seconds]) => ({ label, seconds, share: Math.max(0, seconds) / total }))
    .sort((a, b) => b.seconds - a.seconds);
}

/** One turn of a transcript. */
export interface Turn {
  speaker: string;
  /** Offset into the call (`mm:ss.s`), when the transcript gives one. */
  at?: string;
  text: string;
}

/**
 * Splits a transcript into turns by speaker. Two text forms are read: the analysis service's
 * `[00:01.2 Agent] thank you for calling` (one turn a line) and the spec's example `Agent: ... Customer: ...`;
 * text before any speaker label is a turn of speaker `Unknown`.
 */
export function transcriptTurns(transcript: string | null | undefined): Turn[] {
  if (!transcript) return [];
  const re = /(?:^|\s)(?:\[(\d+:\d+(?:\.\d+)?) (Agent|Customer)\]|(Agent|Customer):)\s*/g;
  const turns: Turn[] = [];
  let current: Omit<Turn, 'text'> = { speaker: 'Unknown' };
  let last = 0;
  for (let m = re.exec(transcript); m; m = re.exec(transcript)) {
    const text = transcript.slice(last, m.index).trim();
    if (text) turns.push({ ...current, text });
    current = m[1] ? { speaker: m[2] as string, at: m[1] } : { speaker: m[3] as string };
    last = m.index + m[0].length;
  }
  const rest = transcript.slice(last).trim();
  if (rest) turns.push({ ...current, text: rest });
  return turns;
}

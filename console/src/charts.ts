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
  /** The bucket was revised after it was first written (late data): revision above 1. */
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

/** Groups agent summaries into stacked bars per agent, sorted by agent then time. */
export function summaryBars(items: AgentSummary[]): AgentBars[] {
  const byAgent = new Map<string, SummaryBar[]>();
  for (const s of items) {
    const bars = byAgent.get(s.agentId) ?? [];
    bars.push({
      timestamp: s.timestamp,
      revision: s.revision,
      handle: stack(handleStates, s.interactions.handleTime),
      presence: stack(presenceStates, s.presence.states),
      revised: s.revision > 1,
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
  text: string;
}

/**
 * Splits a transcript (`Agent: ... Customer: ...`, the analysis API's text form) into turns by speaker;
 * text before any speaker label is one turn of speaker `Unknown`.
 */
export function transcriptTurns(transcript: string | null | undefined): Turn[] {
  if (!transcript) return [];
  const re = /(^|\s)(Agent|Customer):\s*/g;
  const turns: Turn[] = [];
  let speaker = 'Unknown';
  let last = 0;
  for (let m = re.exec(transcript); m; m = re.exec(transcript)) {
    const text = transcript.slice(last, m.index).trim();
    if (text) turns.push({ speaker, text });
    speaker = m[2] as string;
    last = m.index + m[0].length;
  }
  const rest = transcript.slice(last).trim();
  if (rest) turns.push({ speaker, text: rest });
  return turns;
}

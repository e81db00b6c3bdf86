import type { AgentSummary, PresenceState } from '@cc/contracts';

/** Length of one summary period: 15 minutes, aligned on the hour in UTC. */
export const periodMs = 15 * 60_000;

/** Start of the 15-minute UTC period holding `t` (epoch ms). UTC has no DST, so periods are always 15 minutes. */
export function periodOf(t: number): number {
  return t - (((t % periodMs) + periodMs) % periodMs);
}

/** The interaction states timed per direction; HeldExternalParty runs inside Connected. */
export type Segment = 'Ringing' | 'Connected' | 'Wrap' | 'HeldExternalParty';
/** Offer outcomes counted in `offered` (null: withdrawn, not counted). */
export type Outcome = 'Answered' | 'Unexpected' | 'Failed';
/** The breakdown directions of the summaries. */
export type Direction = 'inbound' | 'outbound' | 'internal';

/**
 * An agent's stay in one presence state or one interaction segment. `key` names it for good (agent
 * presence: its start; segment: channel, segment and start), so the event that opens it and the one
 * that closes it write the same contribution slot and a redelivered or reordered event changes nothing.
 */
export type Interval =
  | { kind: 'presence'; key: string; state: PresenceState; start: number; end: number | null }
  | {
      kind: 'segment';
      key: string;
      segment: Segment;
      dir: Direction;
      start: number;
      end: number | null;
      outcome: Outcome | null;
    };

/**
 * Counters of one bucket (or of one interval's share of a bucket), flat: `ht|<segment>|<dir>` ms,
 * `of|<outcome>|<dir>` and `ac|HoldExternalParty|<dir>` counts, `ps|<state>|t` ms and `ps|<state>|n` entries.
 */
export type Counters = Record<string, number>;

/**
 * An interval's shares of the periods it touches, as parallel lists in period order: filled by {@link sharesOf},
 * reused call after call (applying an event allocates no map or entry per share).
 */
export class Shares {
  readonly periods: number[] = [];
  readonly counters: Counters[] = [];
  length = 0;

  /** Empties the lists (for the next interval). */
  reset(): this {
    this.length = 0;
    return this;
  }

  /** The share of period `p`, if any. */
  get(p: number): Counters | undefined {
    for (let i = 0; i < this.length; i++) if (this.periods[i] === p) return this.counters[i];
    return undefined;
  }

  put(p: number, c: Counters): void {
    this.periods[this.length] = p;
    this.counters[this.length] = c;
    this.length++;
  }
}

/**
 * What one interval adds to each period it touches: its time split at every period boundary (an open
 * interval counts up to `openUntil`), plus its counts: a presence entry or a hold in the period it
 * started, an offer outcome in the period the ring ended. LoggedOut time counts only in the periods where
 * the agent logged out and back in: a period spent wholly logged out has no summary (like an agent who
 * never logged in), and a long absence cannot revise periods already served. Written into `out` (emptied first).
 */
export function sharesOf(iv: Interval, openUntil: number, fromPeriod: number, out: Shares): Shares {
  out.reset();
  const first = periodOf(iv.start);
  const end = iv.end ?? Math.max(iv.start, openUntil);
  // Only periods from `fromPeriod` on (an open interval's earlier periods are already written).
  const from = Math.max(first, fromPeriod);
  const firstInRange = first >= fromPeriod;
  if (iv.kind === 'presence') {
    const k = presenceKeys(iv.state);
    const lastLoggedOut = iv.end === null ? first : periodOf(iv.end);
    const loggedOut = iv.state === 'LoggedOut';
    for (let p = from; p < end; p += periodMs) {
      if (loggedOut && p !== first && p !== lastLoggedOut) continue;
      out.put(p, one(k.t, Math.min(end, p + periodMs) - Math.max(iv.start, p)));
    }
    if (firstInRange) {
      const c = out.get(first);
      if (c) c[k.n] = 1;
      else out.put(first, one(k.n, 1));
    }
    return out;
  }
  const k = segmentKeys(iv.segment, iv.dir);
  for (let p = from; p < end; p += periodMs) out.put(p, one(k.ht, Math.min(end, p + periodMs) - Math.max(iv.start, p)));
  let atFirst = firstInRange ? out.get(first) : undefined;
  if (firstInRange && !atFirst) {
    atFirst = {};
    out.put(first, atFirst);
  }
  if (iv.segment === 'HeldExternalParty' && atFirst) atFirst[k.hold] = 1;
  if (iv.segment === 'Ringing' && iv.end !== null && iv.outcome) {
    const p = periodOf(iv.end);
    if (p >= fromPeriod) {
      const key = k.offered[iv.outcome];
      const c = out.get(p);
      if (c) c[key] = (c[key] ?? 0) + 1;
      else out.put(p, one(key, 1));
    }
  }
  return out;
}

/** Counters holding one counter (a computed-key literal, `{ [k]: v }`, cost ~4× this). */
function one(k: string, v: number): Counters {
  const c: Counters = {};
  c[k] = v;
  return c;
}

/** {@link sharesOf} as a map of period → counters (a fresh one per call). */
export function contributionsOf(
  iv: Interval,
  openUntil: number,
  fromPeriod = Number.NEGATIVE_INFINITY,
): Map<number, Counters> {
  const shares = sharesOf(iv, openUntil, fromPeriod, new Shares());
  const out = new Map<number, Counters>();
  for (let i = 0; i < shares.length; i++) out.set(shares.periods[i] as number, shares.counters[i] as Counters);
  return out;
}

// Counter names built once, not per interval (a concatenated property name costs a string and its hashing each time).
const presenceKeyCache = new Map<string, { t: string; n: string }>();
function presenceKeys(state: string): { t: string; n: string } {
  let k = presenceKeyCache.get(state);
  if (!k) {
    k = { t: `ps|${state}|t`, n: `ps|${state}|n` };
    presenceKeyCache.set(state, k);
  }
  return k;
}
type SegmentKeys = { ht: string; hold: string; offered: Record<Outcome, string> };
const segmentKeyCache = new Map<string, Map<string, SegmentKeys>>();
function segmentKeys(segment: Segment, dir: Direction): SegmentKeys {
  let bySegment = segmentKeyCache.get(segment);
  if (!bySegment) {
    bySegment = new Map();
    segmentKeyCache.set(segment, bySegment);
  }
  let k = bySegment.get(dir);
  if (!k) {
    k = {
      ht: `ht|${segment}|${dir}`,
      hold: `ac|HoldExternalParty|${dir}`,
      offered: { Answered: `of|Answered|${dir}`, Unexpected: `of|Unexpected|${dir}`, Failed: `of|Failed|${dir}` },
    };
    bySegment.set(dir, k);
  }
  return k;
}

/** Sums interval contributions into one bucket's counters. */
export function sumParts(parts: Iterable<Counters>): Counters {
  const total: Counters = {};
  for (const part of parts) for (const [k, v] of Object.entries(part)) total[k] = (total[k] ?? 0) + v;
  return total;
}

/** Two counter sets are equal (zero and missing are the same). */
export function sameCounters(a: Counters | undefined, b: Counters | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  for (const k in x) if ((x[k] ?? 0) !== (y[k] ?? 0)) return false;
  for (const k in y) if (!(k in x) && (y[k] ?? 0) !== 0) return false;
  return true;
}

const segments: Segment[] = ['Ringing', 'Connected', 'Wrap', 'HeldExternalParty'];
const outcomes: Outcome[] = ['Answered', 'Unexpected', 'Failed'];
const states: PresenceState[] = ['Ready', 'Away', 'ExtendedAway', 'LoggedOut'];
const dirs: Direction[] = ['inbound', 'outbound', 'internal'];
const seconds = (ms: number) => Math.floor(ms / 1000);

/** An Agent Summary item with its revision (this suite's addition). */
export type SummaryItem = AgentSummary & { revision: number };

/**
 * The Agent Summary item of one bucket: times in whole seconds, rounded down (each breakdown on its own).
 * handleTime and offered list every type; actions and presence states only those that happened.
 */
export function toSummaryItem(agentId: string, period: number, c: Counters, revision: number): SummaryItem {
  const v = (k: string) => c[k] ?? 0;
  const byDir = (prefix: string, conv: (n: number) => number) => {
    const [inbound, outbound, internal] = dirs.map((d) => conv(v(`${prefix}|${d}`))) as [number, number, number];
    return { inbound, outbound, internal };
  };
  const hold = byDir('ac|HoldExternalParty', (n) => n);
  return {
    agentId,
    timestamp: new Date(period).toISOString(),
    revision,
    interactions: {
      handleTime: segments.map((type) => ({
        type,
        totalTime: seconds(dirs.reduce((s, d) => s + v(`ht|${type}|${d}`), 0)),
        ...byDir(`ht|${type}`, seconds),
      })),
      offered: outcomes.map((type) => ({
        type,
        count: dirs.reduce((s, d) => s + v(`of|${type}|${d}`), 0),
        ...byDir(`of|${type}`, (n) => n),
      })),
      actions:
        hold.inbound + hold.outbound + hold.internal > 0
          ? [{ type: 'HoldExternalParty', count: hold.inbound + hold.outbound + hold.internal, ...hold }]
          : [],
    },
    presence: {
      states: states
        .filter((s) => v(`ps|${s}|t`) > 0 || v(`ps|${s}|n`) > 0)
        .map((type) => ({ type, totalTime: seconds(v(`ps|${type}|t`)), count: v(`ps|${type}|n`) })),
    },
  };
}

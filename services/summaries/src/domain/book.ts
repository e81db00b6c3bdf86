import { intervalsOf } from './activity';
import {
  type Counters,
  type Interval,
  periodMs,
  periodOf,
  Shares,
  type SummaryItem,
  sameCounters,
  sharesOf,
  sumParts,
  toSummaryItem,
} from './buckets';

/** One agent's summary for one period: each interval's share, kept apart so re-applying one replaces it. */
export interface Bucket {
  accountId: string;
  agentId: string;
  period: number;
  parts: Map<string, Counters>;
  /** Bumped whenever an event changes the bucket (open activities growing up to `upTo` do not bump it). */
  revision: number;
  /** When an event last changed it (epoch ms): what `revisedSince` selects on. */
  revisedAt: number;
}

/** An interval still open, and the last period its open time was written to (null: none yet). */
export interface OpenInterval {
  iv: Interval;
  reach: number | null;
}

/** What summaries keep per agent: open intervals, and closed interval keys so a late start cannot reopen one. */
export interface AgentState {
  accountId: string;
  agentId: string;
  open: Map<string, OpenInterval>;
  closed: Map<string, number>;
  /** Closed keys added since the state was last handed out to be written (the store keeps them as deltas). */
  fresh: [string, number][];
  /** How many closed keys the next pruning waits for (twice what the last one kept: not one pass per event). */
  pruneAt: number;
}

/** A changed agent state to write: the state, and the closed keys added since its last write. */
export interface AgentChange {
  state: AgentState;
  closedAdded: [string, number][];
}

interface AccountBook {
  buckets: Map<number, Map<string, Bucket>>;
  /** The periods holding buckets, ascending: the in-memory index on (account, timestamp). */
  periods: number[];
  sortedAgents: Map<number, string[]>;
  agents: Map<string, AgentState>;
  agentPeriods: Map<string, Set<number>>;
  /** The upTo open intervals were last written up to (reset by every event). */
  materializedTo: number;
}

/** A query of one account's summaries (times in epoch ms). */
export interface BookQuery {
  from: number;
  to: number;
  agentId?: string;
  revisedSince?: number;
  page: number;
  limit: number;
}

/** How long a closed interval's key is kept after the agent's newest closed interval started. */
const closedKeyMs = 6 * 3_600_000;
/** Closed keys an agent holds before the first pruning. */
const minPruneAt = 256;

// Closed keys only stop a late start event from reopening an interval: hours of them are plenty, and
// fewer keep each agent's stored state small.
function pruneClosed(s: AgentState): void {
  let newest = Number.NEGATIVE_INFINITY;
  for (const start of s.closed.values()) if (start > newest) newest = start;
  for (const [k, start] of s.closed) if (start < newest - closedKeyMs) s.closed.delete(k);
  s.pruneAt = Math.max(minPruneAt, 2 * s.closed.size);
}

function lowerBound(sorted: number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The summaries of every account in memory, built from agent-activity events. Each interval writes its
 * own share of each bucket (replaced, never added to), so applying an event twice or events out of order
 * gives the same buckets. The store keeps what {@link SummaryBook.takeDirty} hands out after each batch.
 */
export class SummaryBook {
  private readonly accounts = new Map<string, AccountBook>();
  private dirtyBuckets = new Set<Bucket>();
  private dirtyAgents = new Set<AgentState>();
  /** Scratch lists for one interval's shares at a time (see {@link sharesOf}). */
  private readonly shares = new Shares();

  private account(accountId: string): AccountBook {
    let a = this.accounts.get(accountId);
    if (!a) {
      a = {
        buckets: new Map(),
        periods: [],
        sortedAgents: new Map(),
        agents: new Map(),
        agentPeriods: new Map(),
        materializedTo: Number.NEGATIVE_INFINITY,
      };
      this.accounts.set(accountId, a);
    }
    return a;
  }

  private agent(accountId: string, agentId: string, a = this.account(accountId)): AgentState {
    let s = a.agents.get(agentId);
    if (!s) {
      s = { accountId, agentId, open: new Map(), closed: new Map(), fresh: [], pruneAt: minPruneAt };
      a.agents.set(agentId, s);
    }
    return s;
  }

  private bucket(
    a: AccountBook,
    accountId: string,
    agentId: string,
    period: number,
    create: boolean,
  ): Bucket | undefined {
    let inPeriod = a.buckets.get(period);
    let b = inPeriod?.get(agentId);
    if (b || !create) return b;
    if (!inPeriod) {
      inPeriod = new Map();
      a.buckets.set(period, inPeriod);
      a.periods.splice(lowerBound(a.periods, period), 0, period);
    }
    b = { accountId, agentId, period, parts: new Map(), revision: 0, revisedAt: 0 };
    inPeriod.set(agentId, b);
    a.sortedAgents.delete(period);
    let ap = a.agentPeriods.get(agentId);
    if (!ap) {
      ap = new Set();
      a.agentPeriods.set(agentId, ap);
    }
    ap.add(period);
    return b;
  }

  private dropBucket(b: Bucket): void {
    const a = this.account(b.accountId);
    const inPeriod = a.buckets.get(b.period);
    inPeriod?.delete(b.agentId);
    a.sortedAgents.delete(b.period);
    a.agentPeriods.get(b.agentId)?.delete(b.period);
    if (inPeriod && inPeriod.size === 0) {
      a.buckets.delete(b.period);
      const i = lowerBound(a.periods, b.period);
      if (a.periods[i] === b.period) a.periods.splice(i, 1);
    }
  }

  private setPart(a: AccountBook, s: AgentState, period: number, key: string, c: Counters, now: number | null): void {
    const b = this.bucket(a, s.accountId, s.agentId, period, true) as Bucket;
    const before = b.parts.get(key);
    if (before !== undefined && sameCounters(before, c)) return;
    if (b.parts.size === 0) a.sortedAgents.delete(period);
    b.parts.set(key, c);
    if (now !== null || b.revision === 0) {
      b.revision++;
      b.revisedAt = now ?? b.revisedAt;
    }
    this.dirtyBuckets.add(b);
  }

  private removePart(a: AccountBook, s: AgentState, period: number, key: string, now: number): void {
    const b = this.bucket(a, s.accountId, s.agentId, period, false);
    if (!b?.parts.delete(key)) return;
    b.revision++;
    b.revisedAt = now;
    this.dirtyBuckets.add(b);
    // An emptied bucket stays (as no item) so its revision keeps counting if it fills again.
    if (b.parts.size === 0) a.sortedAgents.delete(period);
  }

  /** Applies one agent-activity event of an account; `now` stamps the buckets it changes. */
  apply(accountId: string, event: { type: string; data: unknown }, now: number): void {
    const { closed, opened } = intervalsOf(event);
    this.applyIntervals(accountId, (event.data as { agentId: string }).agentId, closed, opened, now);
  }

  /** Applies what one agent-activity event says (its {@link intervalsOf}, read elsewhere: the ingest worker). */
  applyIntervals(accountId: string, agentId: string, closed: Interval[], opened: Interval[], now: number): void {
    if (!closed.length && !opened.length) return;
    const a = this.account(accountId);
    const s = this.agent(accountId, agentId, a);
    const shares = this.shares;
    a.materializedTo = Number.NEGATIVE_INFINITY;
    for (const iv of closed) {
      const before = s.open.get(iv.key);
      if (before) s.open.delete(iv.key);
      if (s.closed.get(iv.key) !== iv.start) {
        s.closed.set(iv.key, iv.start);
        s.fresh.push([iv.key, iv.start]);
      }
      sharesOf(iv, iv.start, Number.NEGATIVE_INFINITY, shares);
      for (let i = 0; i < shares.length; i++)
        this.setPart(a, s, shares.periods[i] as number, iv.key, shares.counters[i] as Counters, now);
      // Open time written past the real end (a late end event) is taken back.
      if (before?.reach != null)
        for (let p = periodOf(iv.start); p <= before.reach; p += periodMs)
          if (shares.get(p) === undefined) this.removePart(a, s, p, iv.key, now);
    }
    if (s.closed.size > s.pruneAt) pruneClosed(s);
    for (const iv of opened) {
      if (s.closed.has(iv.key) || s.open.has(iv.key)) continue;
      const start = periodOf(iv.start);
      s.open.set(iv.key, { iv, reach: start });
      // The entry counts (presence entered, hold placed) show at once; the time grows with upTo.
      sharesOf(iv, iv.start, Number.NEGATIVE_INFINITY, shares);
      for (let i = 0; i < shares.length; i++)
        this.setPart(a, s, shares.periods[i] as number, iv.key, shares.counters[i] as Counters, now);
    }
    this.dirtyAgents.add(s);
  }

  /** Writes every open interval's time up to `upTo` into the account's buckets (no revision bump). */
  materialize(accountId: string, upTo: number): void {
    const a = this.accounts.get(accountId);
    if (!a || upTo <= a.materializedTo) return;
    a.materializedTo = upTo;
    for (const s of a.agents.values()) {
      for (const o of s.open.values()) {
        if (o.iv.start >= upTo) continue;
        const from = o.reach ?? periodOf(o.iv.start);
        let reach = from;
        const shares = sharesOf(o.iv, upTo, from, this.shares);
        for (let i = 0; i < shares.length; i++) {
          const p = shares.periods[i] as number;
          this.setPart(a, s, p, o.iv.key, shares.counters[i] as Counters, null);
          reach = Math.max(reach, p);
        }
        if (reach !== o.reach) {
          o.reach = reach;
          this.dirtyAgents.add(s);
        }
      }
    }
  }

  /** One page of an account's summaries in the window, newest period first, then by agent id. */
  query(accountId: string, q: BookQuery): { items: SummaryItem[]; total: number } {
    const a = this.accounts.get(accountId);
    if (!a) return { items: [], total: 0 };
    // A period [p, p + 15 min) overlapping [from, to): polling with the previous upTo re-reads its period.
    const lo = periodOf(q.from);
    const inWindow = (p: number) => p >= lo && p < q.to;
    let periods: number[];
    if (q.agentId !== undefined) {
      periods = [...(a.agentPeriods.get(q.agentId) ?? [])].filter(inWindow).sort((x, y) => y - x);
    } else {
      periods = a.periods.slice(lowerBound(a.periods, lo), lowerBound(a.periods, q.to)).reverse();
    }
    const agentsOf = (p: number): string[] => {
      if (q.agentId !== undefined) return [q.agentId];
      let ids = a.sortedAgents.get(p);
      if (!ids) {
        ids = [...(a.buckets.get(p)?.values() ?? [])]
          .filter((b) => b.parts.size > 0)
          .map((b) => b.agentId)
          .sort();
        a.sortedAgents.set(p, ids);
      }
      return ids;
    };
    const selected = (b: Bucket | undefined): b is Bucket =>
      b !== undefined && b.parts.size > 0 && (q.revisedSince === undefined || b.revisedAt >= q.revisedSince);
    const skip = (q.page - 1) * q.limit;
    const items: SummaryItem[] = [];
    let total = 0;
    for (const p of periods) {
      const inPeriod = a.buckets.get(p);
      const ids = agentsOf(p);
      if (q.revisedSince === undefined && q.agentId === undefined) {
        // Whole periods before the page are counted, not visited.
        if (total + ids.length <= skip || items.length >= q.limit) {
          total += ids.length;
          continue;
        }
      }
      for (const id of ids) {
        const b = inPeriod?.get(id);
        if (!selected(b)) continue;
        if (total >= skip && items.length < q.limit)
          items.push(toSummaryItem(id, p, sumParts(b.parts.values()), b.revision));
        total++;
      }
    }
    return { items, total };
  }

  /** The buckets and agent states changed since the last call (each agent with the closed keys added since). */
  takeDirty(): { buckets: Bucket[]; agents: AgentChange[] } {
    const agents: AgentChange[] = [];
    for (const state of this.dirtyAgents) {
      agents.push({ state, closedAdded: state.fresh });
      state.fresh = [];
    }
    const out = { buckets: [...this.dirtyBuckets], agents };
    this.dirtyBuckets = new Set();
    this.dirtyAgents = new Set();
    return out;
  }

  /** Puts changes back after a failed write, so the next flush retries them. */
  restoreDirty(d: { buckets: Bucket[]; agents: AgentChange[] }): void {
    for (const b of d.buckets) this.dirtyBuckets.add(b);
    for (const { state, closedAdded } of d.agents) {
      state.fresh = closedAdded.concat(state.fresh);
      this.dirtyAgents.add(state);
    }
  }

  /** Loads a stored bucket (at start). */
  loadBucket(b: Omit<Bucket, 'parts'> & { parts: Record<string, Counters> }): void {
    const into = this.bucket(this.account(b.accountId), b.accountId, b.agentId, b.period, true) as Bucket;
    into.parts = new Map(Object.entries(b.parts));
    into.revision = b.revision;
    into.revisedAt = b.revisedAt;
  }

  /** Loads a stored agent state (at start). */
  loadAgent(s: { accountId: string; agentId: string; open: OpenInterval[]; closed: [string, number][] }): void {
    const into = this.agent(s.accountId, s.agentId);
    into.open = new Map(s.open.map((o) => [o.iv.key, o]));
    into.closed = new Map(s.closed);
    if (into.closed.size > minPruneAt) pruneClosed(into);
  }

  /** Every bucket and agent state held (to rewrite the store's live state). */
  snapshot(): { buckets: Bucket[]; agents: AgentState[] } {
    const buckets: Bucket[] = [];
    const agents: AgentState[] = [];
    for (const a of this.accounts.values()) {
      for (const inPeriod of a.buckets.values()) buckets.push(...inPeriod.values());
      agents.push(...a.agents.values());
    }
    return { buckets, agents };
  }

  /** How many buckets are held. */
  size(): number {
    let n = 0;
    for (const a of this.accounts.values()) for (const inPeriod of a.buckets.values()) n += inPeriod.size;
    return n;
  }

  /** Forgets buckets of periods before `before` and closed-interval keys that started before it. */
  expire(before: number): void {
    for (const a of this.accounts.values()) {
      for (const p of a.periods.filter((x) => x < before)) {
        for (const b of [...(a.buckets.get(p)?.values() ?? [])]) this.dropBucket(b);
      }
      for (const s of a.agents.values()) {
        let pruned = false;
        for (const [k, start] of s.closed) {
          if (start < before) {
            s.closed.delete(k);
            pruned = true;
          }
        }
        if (pruned) this.dirtyAgents.add(s);
      }
    }
  }
}

import { eventTimeMs } from '@cc/contracts';
import { type ActivityItem, type AgentActivityEvent, activityItem, activityKey } from '../domain/agent-activity';
import { hourMs } from '../domain/time';

/** A stored activity with the time it was last written. */
export type StoredActivity = ActivityItem & { updatedAt: number };

/**
 * The `data` of an activity chunk, version 2: one JSON string per chunk holding its activities as rows (arrays, no
 * field names), agents by index in `a`, starts as offsets in the chunk's hour `h`, durations and update times as
 * deltas: about a fifth of the bytes of keyed objects, so the store ingests and returns less and reads parse less.
 *
 * `{"f":2,"h":<hour>,"u":<base updatedAt>,"a":[agentId…],"c":[row…],"o":[row…]}`, `c` finished and `o` running
 * activities (a key in `c` is never also in `o`). A row is `[agent, type, start - h·hourMs, end - start | null,
 * updatedAt - u, …]` followed by, per type:
 * - 0 Presence: `category, name (1: same as category), eligibleForRouting (0/1/null), reason`;
 * - 1 Workload: `calls, semiLive, nonLive`;
 * - 2 Interaction: `category, status, [guid, medium, mediumManager, direction] | null, channel guid (0: no channel)`;
 * - 9 anything else: the whole item.
 * Natural keys are not stored: they are the items' {@link activityKey}. Version 1 (`{c, o}` of items by natural
 * key) is still read.
 */
type Row = (string | number | boolean | null | object)[];

/** The row of an item (see the format above): `a` its agent's index, `du` its update time minus the chunk's. */
function rowOf(i: ActivityItem, base: number, a: number, du: number): Row {
  const head: Row = [a, 9, i.start - base, i.end === null ? null : i.end - i.start, du];
  if (
    i.type === 'Presence' &&
    i.status === null &&
    i.interaction === null &&
    i.channel === null &&
    i.workload === null
  ) {
    head[1] = 0;
    const efr = i.eligibleForRouting === null ? null : i.eligibleForRouting ? 1 : 0;
    head.push(i.category, i.name === i.category ? 1 : i.name, efr, i.reason);
  } else if (
    i.type === 'Workload' &&
    i.workload !== null &&
    i.category === null &&
    i.name === null &&
    i.eligibleForRouting === null &&
    i.status === null &&
    i.reason === null &&
    i.interaction === null &&
    i.channel === null
  ) {
    head[1] = 1;
    head.push(i.workload.calls, i.workload.semiLive, i.workload.nonLive);
  } else if (
    i.type === 'Interaction' &&
    i.name === null &&
    i.eligibleForRouting === null &&
    i.reason === null &&
    i.workload === null &&
    (i.channel === null || typeof i.channel.guid === 'string')
  ) {
    head[1] = 2;
    const r = i.interaction;
    head.push(
      i.category,
      i.status,
      r === null ? null : [r.guid, r.medium, r.mediumManager, r.direction],
      i.channel === null ? 0 : i.channel.guid,
    );
  } else {
    const { updatedAt: _u, ...item } = i as StoredActivity;
    head.push(item as ActivityItem);
  }
  return head;
}

/**
 * The activities one write round puts in one chunk (an account's start hour), as rows: the latest write of each
 * natural key, a finished activity replacing its running form. Built as events are handled, so what waits for the
 * write is one small array per activity (the items and writes the events were built into die young).
 */
export class ChunkRows {
  private readonly agents = new Map<string, number>();
  /** Per agent (by index): rows by the rest of the natural key (a number for Presence and Workload). */
  private readonly c: Map<number | string, Row>[] = [];
  private readonly o: Map<number | string, Row>[] = [];
  private held = 0;
  /** Start hours of the finished activities by the hour they ended in (for the ended references). */
  readonly ended = new Map<number, true>();

  constructor(readonly hour: number) {}

  /**
   * Adds a write of an item, finished (`closed`) or running (`open`), keyed by its natural key: agent, then type
   * and start (and, for Interaction items, segment and channel) — small per-agent maps, mostly of numbers, cost a
   * third of one map of key strings.
   */
  add(kind: 'open' | 'closed', item: ActivityItem): void {
    let a = this.agents.get(item.agentId);
    if (a === undefined) {
      a = this.agents.size;
      this.agents.set(item.agentId, a);
      this.c.push(new Map());
      this.o.push(new Map());
    }
    const c = this.c[a] as Map<number | string, Row>;
    const o = this.o[a] as Map<number | string, Row>;
    // Starts within the hour: small integers, no number object per key.
    const at = item.start - this.hour * hourMs;
    const k =
      item.type === 'Presence'
        ? at * 4
        : item.type === 'Workload'
          ? at * 4 + 1
          : `${item.start}~${item.type}~${item.category}~${item.channel?.guid ?? ''}`;
    if (kind === 'open' && c.has(k)) return;
    const row = rowOf(item, this.hour * hourMs, a, 0);
    const before = c.size + o.size;
    if (kind === 'closed') {
      c.set(k, row);
      o.delete(k);
    } else o.set(k, row);
    this.held += c.size + o.size - before;
    if (item.end !== null) this.ended.set(Math.floor(item.end / hourMs), true);
  }

  /**
   * Adds a row built straight from an event's data (see {@link ActivityRound.addEvent}): the row {@link add} would
   * build from the item (its agent index set here), `k` the rest of its natural key as {@link add} makes it, `end`
   * its end (null while it runs).
   */
  addRow(kind: 'open' | 'closed', agentId: string, k: number | string, row: Row, end: number | null): void {
    let a = this.agents.get(agentId);
    if (a === undefined) {
      a = this.agents.size;
      this.agents.set(agentId, a);
      this.c.push(new Map());
      this.o.push(new Map());
    }
    const c = this.c[a] as Map<number | string, Row>;
    const o = this.o[a] as Map<number | string, Row>;
    if (kind === 'open' && c.has(k)) return;
    row[0] = a;
    const before = c.size + o.size;
    if (kind === 'closed') {
      c.set(k, row);
      o.delete(k);
    } else o.set(k, row);
    this.held += c.size + o.size - before;
    if (end !== null) this.ended.set(Math.floor(end / hourMs), true);
  }

  /** Activities held (finished and running). */
  get size(): number {
    return this.held;
  }

  /** The chunk's `data`, every activity last written at `updatedAt`. */
  encode(updatedAt: number): string {
    const c: Row[] = [];
    const o: Row[] = [];
    for (const rows of this.c) for (const row of rows.values()) c.push(row);
    for (const rows of this.o) for (const row of rows.values()) o.push(row);
    return JSON.stringify({ f: 2, h: this.hour, u: updatedAt, a: [...this.agents.keys()], c, o });
  }
}

/** A write round's activities: per account, per start hour, a {@link ChunkRows}. */
export class ActivityRound {
  readonly accounts = new Map<string, Map<number, ChunkRows>>();
  /** Writes added (for counters). */
  writes = 0;

  add(accountId: string, kind: 'open' | 'closed', hour: number, item: ActivityItem): void {
    this.chunk(accountId, hour).add(kind, item);
    this.writes++;
  }

  /** The round's chunk of the account's `hour`, created on first use. */
  private chunk(accountId: string, hour: number): ChunkRows {
    let hours = this.accounts.get(accountId);
    if (!hours) {
      hours = new Map();
      this.accounts.set(accountId, hours);
    }
    let chunk = hours.get(hour);
    if (!chunk) {
      chunk = new ChunkRows(hour);
      hours.set(hour, chunk);
    }
    return chunk;
  }

  /** Adds a row to the chunk of `hour` (see {@link ChunkRows.addRow}). */
  private addRow(
    accountId: string,
    kind: 'open' | 'closed',
    agentId: string,
    hour: number,
    k: number | string,
    row: Row,
    end: number | null,
  ): void {
    this.chunk(accountId, hour).addRow(kind, agentId, k, row, end);
    this.writes++;
  }

  /**
   * Adds the activity writes of one agent-activity event (those of `activityWrites`), each row built straight from
   * the event's data: no item, write or key object per activity. A row's agent and start are set by its chunk.
   */
  addEvent(accountId: string, event: AgentActivityEvent): void {
    switch (event.type) {
      case 'agent-activity.presence-changed': {
        const d = event.data;
        const p = d.previous;
        if (p) {
          const start = timeMs(p.startedAt);
          const hour = Math.floor(start / hourMs);
          const at = start - hour * hourMs;
          const efr = p.eligibleForRouting ? 1 : 0;
          const row: Row = [0, 0, at, p.durationMs, 0, p.presence, 1, efr, p.reason ?? null];
          this.addRow(accountId, 'closed', d.agentId, hour, at * 4, row, start + p.durationMs);
        }
        const start = timeMs(d.occurredAt);
        const hour = Math.floor(start / hourMs);
        const at = start - hour * hourMs;
        const row: Row = [0, 0, at, null, 0, d.presence, 1, d.eligibleForRouting ? 1 : 0, d.reason ?? null];
        this.addRow(accountId, 'open', d.agentId, hour, at * 4, row, null);
        return;
      }
      case 'agent-activity.workload-changed': {
        const d = event.data;
        const p = d.previous;
        if (p) {
          const start = timeMs(p.startedAt);
          const hour = Math.floor(start / hourMs);
          const at = start - hour * hourMs;
          const w = p.workload;
          const row: Row = [0, 1, at, p.durationMs, 0, w.calls, w.semiLive, w.nonLive];
          this.addRow(accountId, 'closed', d.agentId, hour, at * 4 + 1, row, start + p.durationMs);
        }
        const start = timeMs(d.occurredAt);
        const hour = Math.floor(start / hourMs);
        const at = start - hour * hourMs;
        const w = d.workload;
        const row: Row = [0, 1, at, null, 0, w.calls, w.semiLive, w.nonLive];
        this.addRow(accountId, 'open', d.agentId, hour, at * 4 + 1, row, null);
        return;
      }
      case 'agent-activity.segment-started':
      case 'agent-activity.segment-ended': {
        const d = event.data;
        if (!segments.has(d.segment)) return;
        const start = timeMs(d.startedAt);
        const hour = Math.floor(start / hourMs);
        const at = start - hour * hourMs;
        const r = d.interaction;
        const ref = [r.guid, r.medium, r.mediumManager, r.direction];
        const k = `${start}~Interaction~${d.segment}~${d.channel.guid}`;
        if (event.type === 'agent-activity.segment-started') {
          const row: Row = [0, 2, at, null, 0, d.segment, 'InProgress', ref, d.channel.guid];
          this.addRow(accountId, 'open', d.agentId, hour, k, row, null);
        } else {
          const e = event.data as Extract<AgentActivityEvent, { type: 'agent-activity.segment-ended' }>['data'];
          const row: Row = [0, 2, at, e.durationMs, 0, d.segment, e.status ?? 'Completed', ref, d.channel.guid];
          this.addRow(accountId, 'closed', d.agentId, hour, k, row, start + e.durationMs);
        }
        return;
      }
    }
  }
}

/** A time of an event (validated `date-time`): the events' own shape read field by field, any other by `Date.parse`. */
const timeMs = (s: string): number => eventTimeMs(s) ?? Date.parse(s);
/** Interaction segments that are activities of their own (as `activityWrites`). */
const segments = new Set(['Ringing', 'Connected', 'Wrap']);

/**
 * Encodes a chunk of `hour`: finished and running activities (callers keep the two disjoint by natural key), each
 * last written at `updatedAt` if given, else at its own `updatedAt`.
 */
export function encodeActivityChunk(
  hour: number,
  closed: Iterable<ActivityItem & { updatedAt?: number }>,
  open: Iterable<ActivityItem & { updatedAt?: number }>,
  updatedAt?: number,
): string {
  const agents = new Map<string, number>();
  const base = hour * hourMs;
  let u = updatedAt;
  const row = (i: ActivityItem & { updatedAt?: number }): Row => {
    let a = agents.get(i.agentId);
    if (a === undefined) {
      a = agents.size;
      agents.set(i.agentId, a);
    }
    const at = updatedAt ?? i.updatedAt ?? 0;
    u ??= at;
    return rowOf(i, base, a, at - u);
  };
  const c: Row[] = [];
  for (const i of closed) c.push(row(i));
  const o: Row[] = [];
  for (const i of open) o.push(row(i));
  return JSON.stringify({ f: 2, h: hour, u: u ?? 0, a: [...agents.keys()], c, o });
}

/** A decoded chunk: finished and running activities, and (version 1 only) their natural keys. */
export interface DecodedChunk {
  c: StoredActivity[];
  o: StoredActivity[];
  /** Version 1 chunks stored the keys; version 2 ones are keyed by {@link activityKey}. */
  cKeys?: string[];
  oKeys?: string[];
}

/** Decodes a chunk's `data` (version 2, or version 1's keyed objects). */
export function decodeActivityChunk(data: string): DecodedChunk {
  const parsed = JSON.parse(data) as
    | { f: 2; h: number; u: number; a: string[]; c: Row[]; o: Row[] }
    | { f?: undefined; c?: Record<string, StoredActivity>; o?: Record<string, StoredActivity> };
  if (parsed.f !== 2) {
    const c = parsed.c ?? {};
    const o = parsed.o ?? {};
    return { c: Object.values(c), o: Object.values(o), cKeys: Object.keys(c), oKeys: Object.keys(o) };
  }
  const base = parsed.h * hourMs;
  const { a, u } = parsed;
  const itemOf = (r: Row): StoredActivity => {
    const start = base + (r[2] as number);
    const end = r[3] === null ? null : start + (r[3] as number);
    const agentId = a[r[0] as number] as string;
    let item: ActivityItem;
    switch (r[1]) {
      case 0: {
        const category = r[5] as string | null;
        item = activityItem(agentId, 'Presence', start, end, {
          category,
          name: r[6] === 1 ? category : (r[6] as string | null),
          eligibleForRouting: r[7] === null ? null : r[7] === 1,
          reason: r[8] as string | null,
        });
        break;
      }
      case 1:
        item = activityItem(agentId, 'Workload', start, end, {
          workload: { calls: r[5] as number, semiLive: r[6] as number, nonLive: r[7] as number },
        });
        break;
      case 2: {
        const ref = r[7] as [string, string, string, string] | null;
        item = activityItem(agentId, 'Interaction', start, end, {
          category: r[5] as string | null,
          status: r[6] as string | null,
          interaction: ref === null ? null : { guid: ref[0], medium: ref[1], mediumManager: ref[2], direction: ref[3] },
          channel: r[8] === 0 ? null : { guid: r[8] as string },
        });
        break;
      }
      default: {
        const whole = r[5] as ActivityItem;
        item = activityItem(whole.agentId, whole.type, start, end, whole);
      }
    }
    const stored = item as StoredActivity;
    stored.updatedAt = u + (r[4] as number);
    return stored;
  };
  return { c: parsed.c.map(itemOf), o: parsed.o.map(itemOf) };
}

/**
 * The activities of a group's chunks (in version order): the latest version of each natural key wins, and a
 * finished activity beats its running form (`c` and `o` come back disjoint). Keys come back where they were
 * computed or stored; a single version 2 chunk needs none (its writer kept `c` and `o` disjoint).
 */
export function mergeActivityChunks(data: string[]): DecodedChunk {
  if (data.length === 1) {
    const only = decodeActivityChunk(data[0] as string);
    if (!only.cKeys) return only;
  }
  const c = new Map<string, StoredActivity>();
  const o = new Map<string, StoredActivity>();
  for (const d of data) {
    const chunk = decodeActivityChunk(d);
    for (const [i, item] of chunk.c.entries()) c.set(chunk.cKeys?.[i] ?? activityKey(item), item);
    for (const [i, item] of chunk.o.entries()) o.set(chunk.oKeys?.[i] ?? activityKey(item), item);
  }
  for (const key of c.keys()) o.delete(key);
  return { c: [...c.values()], o: [...o.values()], cKeys: [...c.keys()], oKeys: [...o.keys()] };
}

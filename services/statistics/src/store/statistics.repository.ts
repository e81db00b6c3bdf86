import { crossAccount } from '@cc/store';
import { type ActivityWrite, activityKey } from '../domain/agent-activity';
import { buildInteractionRecord, type InteractionRecord, type LoggedEvent } from '../domain/interaction-record';
import { hourMs, hourOf, hoursOf } from '../domain/time';
import { ActivityRound, encodeActivityChunk, mergeActivityChunks, type StoredActivity } from './activity-chunk.codec';
import type { ChunkDoc, ChunkHeadDoc, StatisticsModels } from './models';

export type { StoredActivity } from './activity-chunk.codec';

/** Which records a window selects (the `include` parameter). */
export type Include = 'Started' | 'StartedOrEnded' | 'Processed';

/** A query window: [start, end) in ms. */
export interface Window {
  start: number;
  end: number;
  include: Include;
}

/** A stored record with the time it was last written. */
export type StoredRecord = InteractionRecord & { updatedAt: number };

/** An interaction event to log for an account. */
export interface InteractionEventWrite {
  accountId: string;
  event: LoggedEvent;
}

// biome-ignore lint/suspicious/noExplicitAny: raw driver documents
type Raw = Record<string, any>;

const bucketId = (accountId: string, hour: number) => `${accountId}|${hour}`;
const logId = (accountId: string, interactionId: string) => `${accountId}|${interactionId}`;
const refId = (kind: string, accountId: string, hour: number) => `${kind}|${accountId}|${hour}`;

/**
 * Statistics documents embed the account in their keys (`<account>|<hour>`, `<kind>|<account>|<hour>`) rather
 * than in an `accountId` field, so they are scoped by how their keys are built: every read is by such a key,
 * and the only scan (`StatAccount`, one document per account) is the retention sweep across accounts.
 */
const raw = (model: StatisticsModels[keyof StatisticsModels]) =>
  crossAccount(model, 'statistics keys embed the account');

/** Parallel `_id` lookups, a few at a time (each is one indexed read). */
async function byIds(model: StatisticsModels[keyof StatisticsModels], ids: string[], concurrency = 8): Promise<Raw[]> {
  const out: Raw[] = [];
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++] as string;
      const doc = await raw(model).findOne({ _id: id as never });
      if (doc) out.push(doc);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
  return out;
}

/** A chunk to insert: its group, data and (activity chunks) how many activities it holds. */
interface ChunkEntry {
  g: string;
  data: string;
  n?: number;
}

/** Most documents per insert or delete call: large bulks stall the shared store for everyone. */
const maxBulk = 50;
/** Chunks of one group after which they are merged into one (reads parse every chunk of a group). */
const mergeAfter = 24;

/** Versions of chunks: microseconds, strictly increasing within the process. */
let lastV = 0;
function stamp(): number {
  lastV = Math.max(Date.now() * 1000, lastV + 1);
  return lastV;
}

/** The chunks of each group key, read by equality on the indexed `g` (a few groups at a time), in `v` order. */
async function chunksOf<T extends { _id: string; v: number } = ChunkDoc>(
  model: StatisticsModels['ActivityChunk'] | StatisticsModels['ActivityChunkHead'],
  groups: string[],
  concurrency = 8,
  field: 'g' | 'd' = 'g',
) {
  const out = new Map<string, T[]>();
  let next = 0;
  const worker = async () => {
    while (next < groups.length) {
      const g = groups[next++] as string;
      const docs = (await raw(model)
        .find({ [field]: g })
        .toArray()) as unknown as T[];
      out.set(
        g,
        docs.sort((a, b) => a.v - b.v || (a._id < b._id ? -1 : 1)),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, groups.length) }, worker));
  return out;
}

/**
 * Reference chunk data: the start hours of the items that ended (or were written) in the chunk's hour, as a JSON
 * array (a read only needs which start hours to read; version 1 mapped each natural key to its start hour).
 */
function refHours(data: string): number[] {
  const parsed = JSON.parse(data) as number[] | Record<string, number>;
  return Array.isArray(parsed) ? parsed : Object.values(parsed);
}

/**
 * Agent activities in insert-only hour chunks (see `ChunkDoc`), interaction records in hour buckets, and the
 * ended/written references of both in chunks. Every write of a consumed batch is one insert per collection (of
 * at most {@link maxBulk} documents per call) or, for interaction records, one `bulkWrite` of upserts by natural
 * key: idempotent on redelivery. Every read is by equality (`_id` or chunk group), filtered and ordered in memory.
 */
export class StatisticsRepository {
  /** Chunks written per group since start (merged when they pile up), and merges running. */
  private readonly chunkCounts = new Map<string, number>();
  private readonly merging = new Set<string>();
  /** Reference (group → start hours) this process has written (saves a write per batch when nothing is new). */
  private readonly notedRefs = new Map<string, Set<number>>();
  /** The oldest hour noted per account (saves a write per batch when nothing older arrives). */
  private readonly notedOldest = new Map<string, number>();

  constructor(private readonly m: StatisticsModels) {}

  /**
   * Writes a batch of activity writes (open and closed items) with their ended/written references: one chunk per
   * (account, start hour), the latest write of each natural key in it, a running form dropped when its finished one
   * is in the same batch; references as the set of start hours per (kind, account, hour).
   */
  async writeActivities(accountWrites: { accountId: string; writes: ActivityWrite[] }[], now: number): Promise<void> {
    const round = new ActivityRound();
    for (const { accountId, writes } of accountWrites)
      for (const w of writes) round.add(accountId, w.kind, w.hour, w.item);
    await this.writeActivityRounds([round], now);
  }

  /**
   * Writes write rounds (oldest first: a later round's chunks get later versions) as {@link writeActivities} does,
   * every activity last written at `now`.
   */
  async writeActivityRounds(rounds: ActivityRound[], now: number): Promise<void> {
    const chunks: ChunkEntry[] = [];
    const refs = new Map<string, Set<number>>();
    const oldest = new Map<string, number>();
    const refIn = (g: string) => {
      let r = refs.get(g);
      if (!r) {
        r = new Set();
        refs.set(g, r);
      }
      return r;
    };
    for (const round of rounds) {
      for (const [accountId, hours] of round.accounts) {
        const written = refIn(refId('ap', accountId, hourOf(now)));
        let min = oldest.get(accountId) ?? Number.POSITIVE_INFINITY;
        for (const [hour, rows] of hours) {
          if (!rows.size) continue;
          chunks.push({ g: bucketId(accountId, hour), data: rows.encode(now), n: rows.size });
          written.add(hour);
          for (const eh of rows.ended.keys()) refIn(refId('ae', accountId, eh)).add(hour);
          if (hour < min) min = hour;
        }
        if (min !== Number.POSITIVE_INFINITY) oldest.set(accountId, min);
      }
    }
    await Promise.all([
      this.insertChunks(this.m.ActivityChunk, chunks, true),
      this.insertRefs(refs),
      this.noteAccounts(oldest),
    ]);
  }

  /**
   * Logs a batch of interaction events and rebuilds the record of every interaction they touch: the logs are
   * read by `_id`, the records rebuilt from all their events (so order and duplicates do not matter), and written
   * back with one `bulkWrite` per collection.
   */
  async writeInteractionEvents(batch: InteractionEventWrite[], now: number): Promise<void> {
    const byInteraction = new Map<string, { accountId: string; interactionId: string; events: LoggedEvent[] }>();
    for (const { accountId, event } of batch) {
      const interactionId = event.data.interactionId as string;
      const id = logId(accountId, interactionId);
      const entry = byInteraction.get(id) ?? { accountId, interactionId, events: [] };
      byInteraction.set(id, entry);
      entry.events.push(event);
    }
    const logs = new Map(
      (await byIds(this.m.InteractionLog, [...byInteraction.keys()])).map((d) => [d._id as string, d]),
    );
    const logSets = new Map<string, Raw>();
    const buckets = new Map<string, Raw>();
    const unsets: Raw[] = [];
    const refs = new Map<string, Set<number>>();
    const oldest = new Map<string, number>();
    for (const [id, { accountId, interactionId, events }] of byInteraction) {
      const prior = logs.get(id);
      const logged: LoggedEvent[] = Object.values((prior?.events ?? {}) as Record<string, LoggedEvent>);
      const record = buildInteractionRecord([...logged, ...events], now);
      if (!record) continue;
      const hour = hourOf(record.start);
      const set: Raw = { accountId, interactionId, startHour: hour };
      for (const e of events) set[`events.s${e.sequence}`] = { type: e.type, sequence: e.sequence, data: e.data };
      logSets.set(id, set);
      if (prior && typeof prior.startHour === 'number' && prior.startHour !== hour) {
        unsets.push({
          updateOne: {
            filter: { _id: bucketId(accountId, prior.startHour) },
            update: { $unset: { [`items.${interactionId}`]: '' } },
          },
        });
      }
      const bucket = buckets.get(bucketId(accountId, hour)) ?? { accountId, hour };
      bucket[`items.${interactionId}`] = { ...record, updatedAt: now };
      buckets.set(bucketId(accountId, hour), bucket);
      const written = refs.get(refId('ip', accountId, hourOf(now))) ?? new Set<number>();
      written.add(hour);
      refs.set(refId('ip', accountId, hourOf(now)), written);
      if (record.end !== null) {
        const eh = hourOf(record.end);
        const ended = refs.get(refId('ie', accountId, eh)) ?? new Set<number>();
        ended.add(hour);
        refs.set(refId('ie', accountId, eh), ended);
      }
      oldest.set(accountId, Math.min(oldest.get(accountId) ?? hour, hour));
    }
    // The log first: a crash after it rebuilds the same record from the redelivered batch.
    await this.upsertSets(this.m.InteractionLog, logSets);
    await Promise.all([
      this.upsertSets(this.m.InteractionBucket, buckets, unsets),
      this.insertRefs(refs),
      this.noteAccounts(oldest),
    ]);
  }

  /** The account's activities selected by the window, oldest first (ties by natural key). */
  async activities(accountId: string, w: Window): Promise<StoredActivity[]> {
    const groups = (await this.startHours(accountId, w, 'a')).map((h) => bucketId(accountId, h));
    const byGroup = await chunksOf(this.m.ActivityChunk, groups);
    // Groups are start hours, in order: their ordered items concatenate in order.
    return groups.flatMap((g) => this.selected(byGroup.get(g) ?? [], w, g));
  }

  /** The account's interaction records selected by the window, oldest first (ties by guid). */
  async interactions(accountId: string, w: Window): Promise<StoredRecord[]> {
    const hours = await this.startHours(accountId, w, 'i');
    const docs = await byIds(
      this.m.InteractionBucket,
      hours.map((h) => bucketId(accountId, h)),
    );
    const out: StoredRecord[] = [];
    for (const doc of docs) {
      for (const r of Object.values((doc.items ?? {}) as Record<string, StoredRecord>)) if (selects(r, w)) out.push(r);
    }
    return out.sort((a, b) => a.start - b.start || (a.guid < b.guid ? -1 : 1));
  }

  /**
   * Deletes the buckets and chunks (and the interaction logs and references) of hours older than `cutoff`, at most
   * `maxHours` hours per account per call, walking from each account's oldest stored hour: bounded `_id` deletes.
   */
  async expire(cutoff: number, maxHours: number): Promise<number> {
    const cutoffHour = hourOf(cutoff);
    let deleted = 0;
    const accounts = await raw(this.m.StatAccount).find({}).toArray();
    for (const acc of accounts) {
      const accountId = String(acc._id);
      const from = acc.oldestHour as number;
      const to = Math.min(cutoffHour, from + maxHours);
      if (from >= to) continue;
      const hours = Array.from({ length: to - from }, (_, i) => from + i);
      const interactionBuckets = await byIds(
        this.m.InteractionBucket,
        hours.map((h) => bucketId(accountId, h)),
      );
      const logIds = interactionBuckets.flatMap((b) => Object.keys(b.items ?? {}).map((g) => logId(accountId, g)));
      const chunkIds = async (model: StatisticsModels['ActivityChunk'], groups: string[]) =>
        [...(await chunksOf(model, groups)).values()].flatMap((docs) => docs.map((d) => d._id));
      const activityChunks = await chunkIds(
        this.m.ActivityChunk,
        hours.map((h) => bucketId(accountId, h)),
      );
      const refChunks = await chunkIds(
        this.m.RefChunk,
        hours.flatMap((h) => ['ap', 'ae', 'ip', 'ie'].map((k) => refId(k, accountId, h))),
      );
      deleted += await this.deleteIds(
        this.m.InteractionBucket,
        interactionBuckets.map((b) => String(b._id)),
      );
      await this.deleteIds(this.m.ActivityChunkHead, activityChunks);
      deleted += await this.deleteIds(this.m.ActivityChunk, activityChunks);
      await this.deleteIds(this.m.InteractionLog, logIds);
      await this.deleteIds(this.m.RefChunk, refChunks);
      await raw(this.m.StatAccount).updateOne({ _id: accountId as never }, { $max: { oldestHour: to } } as never);
    }
    return deleted;
  }

  /** The start hours a window must read: its own hours, plus (ended/processed) the hours its references name. */
  private async startHours(accountId: string, w: Window, family: 'a' | 'i'): Promise<number[]> {
    const hours = new Set<number>();
    const windowHours = hoursOf(w.start, w.end);
    if (w.include !== 'Processed') for (const h of windowHours) hours.add(h);
    if (w.include !== 'Started') {
      const kind = `${family}${w.include === 'Processed' ? 'p' : 'e'}`;
      const byGroup = await chunksOf(
        this.m.RefChunk,
        windowHours.map((h) => refId(kind, accountId, h)),
      );
      for (const docs of byGroup.values()) for (const d of docs) for (const h of refHours(d.data)) hours.add(h);
    }
    return [...hours].sort((a, b) => a - b);
  }

  /**
   * Inserts the references a batch implies, but only the (group, start hour) pairs this process has not written
   * yet: a reference is needed once, and most batches repeat the last one's (written in the current hour, to it).
   */
  private async insertRefs(refs: Map<string, Set<number>>): Promise<void> {
    const fresh = new Map<string, string>();
    const toNote: [Set<number>, number[]][] = [];
    for (const [g, hours] of refs) {
      let noted = this.notedRefs.get(g);
      if (!noted) {
        if (this.notedRefs.size > 10_000) this.notedRefs.clear();
        noted = new Set();
        this.notedRefs.set(g, noted);
      }
      const missing = [...hours].filter((h) => !noted.has(h));
      if (!missing.length) continue;
      fresh.set(g, JSON.stringify(missing));
      toNote.push([noted, missing]);
    }
    if (!fresh.size) return;
    await this.insertChunks(
      this.m.RefChunk,
      [...fresh].map(([g, data]) => ({ g, data })),
      false,
    );
    for (const [noted, hours] of toNote) for (const h of hours) noted.add(h);
  }

  /**
   * Inserts the chunks (at most {@link maxBulk} per call, in order: a group's later chunk gets a later version), and
   * for activity chunks their heads; merges a group's chunks when they pile up.
   */
  private async insertChunks(
    model: StatisticsModels['ActivityChunk'],
    entries: ChunkEntry[],
    activity: boolean,
  ): Promise<void> {
    const docs: ChunkDoc[] = entries.map(({ g, data }) => {
      const v = stamp();
      return { _id: `${g}|${v}`, g, v, data };
    });
    // Bulks of at most `maxBulk` (a bigger one stalls the store for everyone), sent side by side.
    const bulks: Promise<unknown>[] = [];
    for (let i = 0; i < docs.length; i += maxBulk)
      bulks.push(raw(model).insertMany(docs.slice(i, i + maxBulk) as never[], { ordered: false }));
    await Promise.all(bulks);
    if (activity)
      await this.insertHeads(
        docs,
        entries.map((e) => e.n ?? 0),
      );
    // Only a hint for merging (reads merge too): bounded by forgetting it all now and then.
    if (this.chunkCounts.size > 10_000) this.chunkCounts.clear();
    for (const { g } of entries) {
      const n = (this.chunkCounts.get(g) ?? 0) + 1;
      this.chunkCounts.set(g, n);
      if (n >= mergeAfter) this.scheduleMerge(model, g, activity ? 'activity' : 'ref');
    }
  }

  /**
   * Merges a group's chunks into one, in the background: the merged chunk is inserted first with the version of the
   * newest chunk it holds, then the merged ones are deleted. A crash between leaves duplicates that merge the same
   * way; a chunk written meanwhile (by any replica) has a newer version and still wins.
   */
  private scheduleMerge(model: StatisticsModels['ActivityChunk'], g: string, kind: 'activity' | 'ref'): void {
    if (this.merging.has(g)) return;
    this.merging.add(g);
    this.chunkCounts.set(g, 0);
    void (async () => {
      const docs = (await chunksOf(model, [g])).get(g) ?? [];
      if (docs.length < 2) return;
      const v = (docs[docs.length - 1] as ChunkDoc).v;
      let data: string;
      let n = 0;
      if (kind === 'activity') {
        const { c, o } = mergeActivityChunks(docs.map((d) => d.data));
        data = encodeActivityChunk(Number(g.slice(g.lastIndexOf('|') + 1)), c, o);
        n = c.length + o.length;
      } else data = JSON.stringify([...new Set(docs.flatMap((d) => refHours(d.data)))]);
      const merged: ChunkDoc = { _id: `${g}|${v}|m${stamp()}`, g, v, data };
      await raw(model).insertOne(merged as never);
      if (kind === 'activity') await this.insertHeads([merged], [n]);
      // Heads first: a head without its chunk would count activities no read finds.
      if (kind === 'activity')
        await this.deleteIds(
          this.m.ActivityChunkHead,
          docs.map((d) => d._id),
        );
      await this.deleteIds(
        model,
        docs.map((d) => d._id),
      );
    })()
      .catch(() => undefined) // left for the next merge; reads are correct either way
      .finally(() => this.merging.delete(g));
  }

  /** The heads of activity chunks (after the chunks: a head always has its chunk). */
  private async insertHeads(docs: ChunkDoc[], counts: number[]): Promise<void> {
    const heads: ChunkHeadDoc[] = docs.map((d, i) => ({
      _id: d._id,
      g: d.g,
      d: dayKeyOf(d.g),
      v: d.v,
      n: counts[i] ?? 0,
    }));
    for (let i = 0; i < heads.length; i += maxBulk)
      await raw(this.m.ActivityChunkHead).insertMany(heads.slice(i, i + maxBulk) as never[], { ordered: false });
  }

  /**
   * One page of the account's activities selected by the window (oldest first, ties by natural key) and how many
   * there are. For `include=Started` without filters, the hours the window covers whole and one chunk holds are
   * counted from their heads, and only the hours the page shows (and the window's partial hours) are read.
   */
  async activityPage(
    accountId: string,
    w: Window,
    filter: { agentId?: string; type?: string },
    page: number,
    limit: number,
  ): Promise<{ items: StoredActivity[]; total: number }> {
    const keep = (i: StoredActivity) =>
      (!filter.agentId || i.agentId === filter.agentId) && (!filter.type || i.type === filter.type);
    const skip = (page - 1) * limit;
    if (w.include !== 'Started' || filter.agentId || filter.type) {
      const all = (await this.activities(accountId, w)).filter(keep);
      return { items: all.slice(skip, skip + limit), total: all.length };
    }
    const hours = hoursOf(w.start, w.end);
    const groups = hours.map((h) => bucketId(accountId, h));
    const heads = new Map<string, ChunkHeadDoc[]>();
    for (const docs of (
      await chunksOf<ChunkHeadDoc>(this.m.ActivityChunkHead, [...new Set(groups.map(dayKeyOf))], 8, 'd')
    ).values())
      for (const head of docs) {
        const list = heads.get(head.g);
        if (list) list.push(head);
        else heads.set(head.g, [head]);
      }
    const counts = new Map<string, number>();
    for (const [i, g] of groups.entries()) {
      const h = hours[i] as number;
      const hs = heads.get(g) ?? [];
      const whole = h * hourMs >= w.start && (h + 1) * hourMs <= w.end;
      if (hs.length === 0) counts.set(g, 0);
      else if (hs.length === 1 && whole) counts.set(g, (hs[0] as ChunkHeadDoc).n);
    }
    const read = new Map<string, StoredActivity[]>();
    const readGroups = async (gs: string[]) => {
      const byGroup = await chunksOf(this.m.ActivityChunk, gs);
      for (const g of gs) {
        const items = this.selected(byGroup.get(g) ?? [], w, g);
        read.set(g, items);
        counts.set(g, items.length);
      }
    };
    await readGroups(groups.filter((g) => !counts.has(g)));
    let total = 0;
    const shown: string[] = [];
    for (const g of groups) {
      const n = counts.get(g) ?? 0;
      if (n > 0 && total + n > skip && total < skip + limit) shown.push(g);
      total += n;
    }
    await readGroups(shown.filter((g) => !read.has(g)));
    const items: StoredActivity[] = [];
    let at = 0;
    for (const g of groups) {
      const n = counts.get(g) ?? 0;
      if (shown.includes(g))
        items.push(...(read.get(g) ?? []).slice(Math.max(0, skip - at), Math.max(0, skip + limit - at)));
      at += n;
    }
    return { items, total };
  }

  /** The activities of one group's chunks the window selects, ordered. */
  private selected(docs: ChunkDoc[], w: Window, g: string): StoredActivity[] {
    if (!docs.length) return [];
    const { c, o } = mergeActivityChunks(docs.map((d) => d.data));
    const out: StoredActivity[] = [];
    for (const item of c) if (selects(item, w)) out.push(item);
    for (const item of o) if (selects(item, w)) out.push(item);
    if (docs.length >= mergeAfter) this.scheduleMerge(this.m.ActivityChunk, g, 'activity');
    // Ties on start (rare) are ordered by natural key, computed only for them.
    const keys = new Map<StoredActivity, string>();
    const keyOf = (i: StoredActivity) => {
      let k = keys.get(i);
      if (k === undefined) {
        k = activityKey(i);
        keys.set(i, k);
      }
      return k;
    };
    return out.sort((a, b) => {
      if (a.start !== b.start) return a.start - b.start;
      const ka = keyOf(a);
      const kb = keyOf(b);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
  }

  /** Deletes by `_id`, at most {@link maxBulk} per call; returns how many were deleted. */
  private async deleteIds(model: StatisticsModels[keyof StatisticsModels], ids: string[]): Promise<number> {
    let n = 0;
    for (let i = 0; i < ids.length; i += maxBulk) {
      const ops = ids.slice(i, i + maxBulk).map((id) => ({ deleteOne: { filter: { _id: id } } }));
      n += (await raw(model).bulkWrite(ops as never, { ordered: false })).deletedCount ?? 0;
    }
    return n;
  }

  private async upsertSets(
    model: StatisticsModels[keyof StatisticsModels],
    sets: Map<string, Raw>,
    extra: Raw[] = [],
  ): Promise<void> {
    const ops: Raw[] = [
      ...extra,
      ...[...sets].map(([id, set]) => ({ updateOne: { filter: { _id: id }, update: { $set: set }, upsert: true } })),
    ];
    if (ops.length) await raw(model).bulkWrite(ops as never, { ordered: false });
  }

  private async noteAccounts(all: Map<string, number>): Promise<void> {
    // Only what moves an account's oldest hour back (this process has not noted it yet): usually nothing.
    const oldest = [...all].filter(([id, hour]) => hour < (this.notedOldest.get(id) ?? Number.POSITIVE_INFINITY));
    if (!oldest.length) return;
    await raw(this.m.StatAccount).bulkWrite(
      oldest.map(([id, hour]) => ({
        updateOne: { filter: { _id: id }, update: { $min: { oldestHour: hour } }, upsert: true },
      })) as never,
      { ordered: false },
    );
    for (const [id, hour] of oldest) this.notedOldest.set(id, hour);
  }
}

/** The day key (`<account>|<day>`) of an hour group (`<account>|<hour>`): heads are looked up by day. */
function dayKeyOf(g: string): string {
  const i = g.lastIndexOf('|');
  return `${g.slice(0, i)}|${Math.floor(Number(g.slice(i + 1)) / 24)}`;
}

function selects(r: { start: number; end: number | null; updatedAt: number }, w: Window): boolean {
  const inside = (t: number | null) => t !== null && t >= w.start && t < w.end;
  if (w.include === 'Processed') return inside(r.updatedAt);
  if (w.include === 'StartedOrEnded') return inside(r.start) || inside(r.end);
  return inside(r.start);
}

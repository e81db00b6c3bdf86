import type { ActivityItem, ActivityWrite } from '../domain/agent-activity';
import { buildInteractionRecord, type InteractionRecord, type LoggedEvent } from '../domain/interaction-record';
import { hourOf, hoursOf } from '../domain/time';
import type { StatisticsModels } from './models';

/** Which records a window selects (the `include` parameter). */
export type Include = 'Started' | 'StartedOrEnded' | 'Processed';

/** A query window: [start, end) in ms. */
export interface Window {
  start: number;
  end: number;
  include: Include;
}

/** A stored activity with the time it was last written. */
export type StoredActivity = ActivityItem & { updatedAt: number };
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

/** Parallel `_id` lookups, a few at a time (each is one indexed read). */
async function byIds(model: StatisticsModels[keyof StatisticsModels], ids: string[], concurrency = 8): Promise<Raw[]> {
  const out: Raw[] = [];
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++] as string;
      const doc = await model.collection.findOne({ _id: id as never });
      if (doc) out.push(doc);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
  return out;
}

/**
 * Agent activities and interaction records in hour buckets. Every write of a consumed batch is one `bulkWrite`
 * per collection of upserts by natural key (idempotent on redelivery); every read is a set of `_id` lookups of
 * the window's buckets, filtered and ordered in memory.
 */
export class StatisticsRepository {
  constructor(private readonly m: StatisticsModels) {}

  /** Writes a batch of activity writes (open and closed items) with their ended/written references. */
  async writeActivities(accountWrites: { accountId: string; writes: ActivityWrite[] }[], now: number): Promise<void> {
    const buckets = new Map<string, Raw>();
    const refs = new Map<string, Raw>();
    const oldest = new Map<string, number>();
    const setIn = (map: Map<string, Raw>, id: string, base: Raw) => {
      const set = map.get(id) ?? { ...base };
      map.set(id, set);
      return set;
    };
    for (const { accountId, writes } of accountWrites) {
      for (const w of writes) {
        const set = setIn(buckets, bucketId(accountId, w.hour), { accountId, hour: w.hour });
        set[`${w.kind === 'closed' ? 'items' : 'open'}.${w.key}`] = { ...w.item, updatedAt: now };
        setIn(refs, refId('ap', accountId, hourOf(now)), { accountId, hour: hourOf(now) })[`refs.${w.key}`] = w.hour;
        if (w.item.end !== null) {
          const h = hourOf(w.item.end);
          setIn(refs, refId('ae', accountId, h), { accountId, hour: h })[`refs.${w.key}`] = w.hour;
        }
        oldest.set(accountId, Math.min(oldest.get(accountId) ?? w.hour, w.hour));
      }
    }
    await Promise.all([
      this.upsertSets(this.m.ActivityBucket, buckets),
      this.upsertSets(this.m.StatRef, refs),
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
    const refs = new Map<string, Raw>();
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
      const written = refs.get(refId('ip', accountId, hourOf(now))) ?? { accountId, hour: hourOf(now) };
      written[`refs.${interactionId}`] = hour;
      refs.set(refId('ip', accountId, hourOf(now)), written);
      if (record.end !== null) {
        const eh = hourOf(record.end);
        const ended = refs.get(refId('ie', accountId, eh)) ?? { accountId, hour: eh };
        ended[`refs.${interactionId}`] = hour;
        refs.set(refId('ie', accountId, eh), ended);
      }
      oldest.set(accountId, Math.min(oldest.get(accountId) ?? hour, hour));
    }
    // The log first: a crash after it rebuilds the same record from the redelivered batch.
    await this.upsertSets(this.m.InteractionLog, logSets);
    await Promise.all([
      this.upsertSets(this.m.InteractionBucket, buckets, unsets),
      this.upsertSets(this.m.StatRef, refs),
      this.noteAccounts(oldest),
    ]);
  }

  /** The account's activities selected by the window, oldest first (ties by natural key). */
  async activities(accountId: string, w: Window): Promise<StoredActivity[]> {
    const docs = await byIds(this.m.ActivityBucket, await this.startHours(accountId, w, 'a'));
    const out: { key: string; item: StoredActivity }[] = [];
    for (const doc of docs) {
      const items = (doc.items ?? {}) as Record<string, StoredActivity>;
      const open = (doc.open ?? {}) as Record<string, StoredActivity>;
      for (const [key, item] of Object.entries(items)) if (selects(item, w)) out.push({ key, item });
      for (const [key, item] of Object.entries(open)) if (!(key in items) && selects(item, w)) out.push({ key, item });
    }
    return out
      .sort((a, b) => a.item.start - b.item.start || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((x) => x.item);
  }

  /** The account's interaction records selected by the window, oldest first (ties by guid). */
  async interactions(accountId: string, w: Window): Promise<StoredRecord[]> {
    const docs = await byIds(this.m.InteractionBucket, await this.startHours(accountId, w, 'i'));
    const out: StoredRecord[] = [];
    for (const doc of docs) {
      for (const r of Object.values((doc.items ?? {}) as Record<string, StoredRecord>)) if (selects(r, w)) out.push(r);
    }
    return out.sort((a, b) => a.start - b.start || (a.guid < b.guid ? -1 : 1));
  }

  /**
   * Deletes the buckets (and the interaction logs and references) of hours older than `cutoff`, at most
   * `maxHours` hours per account per call, walking from each account's oldest stored hour: bounded `_id` deletes.
   */
  async expire(cutoff: number, maxHours: number): Promise<number> {
    const cutoffHour = hourOf(cutoff);
    let deleted = 0;
    const accounts = await this.m.StatAccount.collection.find({}).toArray();
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
      const del = (ids: string[]) => ids.map((id) => ({ deleteOne: { filter: { _id: id } } }));
      const results = await Promise.all([
        logIds.length ? this.m.InteractionLog.collection.bulkWrite(del(logIds) as never, { ordered: false }) : null,
        this.m.InteractionBucket.collection.bulkWrite(del(hours.map((h) => bucketId(accountId, h))) as never, {
          ordered: false,
        }),
        this.m.ActivityBucket.collection.bulkWrite(del(hours.map((h) => bucketId(accountId, h))) as never, {
          ordered: false,
        }),
        this.m.StatRef.collection.bulkWrite(
          del(hours.flatMap((h) => ['ap', 'ae', 'ip', 'ie'].map((k) => refId(k, accountId, h)))) as never,
          { ordered: false },
        ),
      ]);
      deleted += (results[1]?.deletedCount ?? 0) + (results[2]?.deletedCount ?? 0);
      await this.m.StatAccount.collection.updateOne({ _id: accountId as never }, { $max: { oldestHour: to } } as never);
    }
    return deleted;
  }

  /** The start hours a window must read: its own hours, plus (ended/processed) the hours its references name. */
  private async startHours(accountId: string, w: Window, family: 'a' | 'i'): Promise<string[]> {
    const hours = new Set<number>();
    const windowHours = hoursOf(w.start, w.end);
    if (w.include !== 'Processed') for (const h of windowHours) hours.add(h);
    if (w.include !== 'Started') {
      const kind = `${family}${w.include === 'Processed' ? 'p' : 'e'}`;
      const refDocs = await byIds(
        this.m.StatRef,
        windowHours.map((h) => refId(kind, accountId, h)),
      );
      for (const d of refDocs) for (const h of Object.values((d.refs ?? {}) as Record<string, number>)) hours.add(h);
    }
    return [...hours].sort((a, b) => a - b).map((h) => bucketId(accountId, h));
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
    if (ops.length) await model.collection.bulkWrite(ops as never, { ordered: false });
  }

  private async noteAccounts(oldest: Map<string, number>): Promise<void> {
    if (!oldest.size) return;
    await this.m.StatAccount.collection.bulkWrite(
      [...oldest].map(([id, hour]) => ({
        updateOne: { filter: { _id: id }, update: { $min: { oldestHour: hour } }, upsert: true },
      })) as never,
      { ordered: false },
    );
  }
}

function selects(r: { start: number; end: number | null; updatedAt: number }, w: Window): boolean {
  const inside = (t: number | null) => t !== null && t >= w.start && t < w.end;
  if (w.include === 'Processed') return inside(r.updatedAt);
  if (w.include === 'StartedOrEnded') return inside(r.start) || inside(r.end);
  return inside(r.start);
}

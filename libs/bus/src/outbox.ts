import { delay, type Logger, type Metrics, retry, retryPolicies } from '@cc/kit';
import { type Model, mongo, Schema } from 'mongoose';
import type { CloudEvent } from './envelope';
import type { EventProducer } from './producer';
import { InvalidEventError, RefusedEventError } from './schemas';

/** An event waiting in its aggregate's document until it is on Kafka. */
export interface OutboxEntry {
  /** The event id. */
  _id: string;
  topic: string;
  /**
   * The event as its JSON text (entries staged by earlier versions of the suite hold the object; both are read).
   * A store like FerretDB converts a document field by field on every insert and update: one string instead of
   * the event's nested fields made inserting an interaction with its events ~40 % cheaper there, and the text
   * keeps every part of the event (empty objects included) exactly as built.
   */
  event: string | CloudEvent;
  createdAt: Date;
}

/**
 * An outbox entry whose text is not JSON: no version of the suite can ever publish it. The message names the entry
 * only; the parser's message (`detail`) may quote the text, so it goes to the entry's dead letter, not to logs.
 */
export class UnreadableEntryError extends InvalidEventError {
  constructor(
    message: string,
    readonly detail: string,
  ) {
    super(message);
    this.name = 'UnreadableEntryError';
  }
}

/**
 * The event an outbox entry holds (its JSON text parsed, or the object of an entry an earlier version staged). Text
 * that does not parse is an {@link UnreadableEntryError}: it fails the same way on every attempt.
 */
export function entryEvent(entry: Pick<OutboxEntry, '_id' | 'event'>): CloudEvent {
  if (typeof entry.event !== 'string') return entry.event;
  try {
    return JSON.parse(entry.event) as CloudEvent;
  } catch (err) {
    throw new UnreadableEntryError(`outbox entry ${entry._id}: unparseable event text`, (err as Error).message);
  }
}

/**
 * Where the relay sets aside, in each database, the outbox entries nobody can ever publish (see
 * {@link OutboxRelay.setAside}): one document per entry, `_id` `<collection>:<document id>:<event id>`. Kept until
 * an operator removes them.
 */
export const deadLetterCollection = 'outbox_dead_letters';

/** A set-aside outbox entry, as {@link deadLetterCollection} holds it. */
export interface OutboxDeadLetter {
  _id: string;
  /** The collection and document whose outbox held it. */
  collection: string;
  documentId: string;
  eventId: string;
  topic: string;
  /** The event's type, when its text could be read. */
  type: string | null;
  /** The entry's event as it was staged (its JSON text, or the object an earlier version staged). */
  event: string | CloudEvent;
  /** Why it cannot be published (the broker's refusal, or the parser's message, which may quote the text). */
  reason: string;
  /** The broker's error code (e.g. MESSAGE_TOO_LARGE); null for unreadable text. */
  refusal: string | null;
  stagedAt: Date;
  setAsideAt: Date;
}

/** Whether nothing can ever publish the entry that failed so: set aside rather than kept (see OutboxRelay.setAside). */
function neverPublishable(err: unknown): boolean {
  return err instanceof RefusedEventError || err instanceof UnreadableEntryError;
}

/**
 * Mongoose schema fragment for the outbox; add it to every aggregate that emits events. `outboxSeq`
 * counts stagings so the relay can clear what it published without `$pull` conditions, which
 * MongoDB-compatible stores such as FerretDB 1.x do not apply. `outboxPending` is true from a write that
 * staged entries until the relay clears them: the periodic safety sweep finds pending documents by that
 * indexed equality, which every store serves from the index, instead of by the entries' age (a range, which
 * FerretDB 1.24 evaluates by converting every document of the collection: with 5,000 interactions queued,
 * about a tenth of a core at rest).
 */
export const outboxField = {
  outbox: {
    type: [
      new Schema<OutboxEntry>(
        { _id: String, topic: String, event: Schema.Types.Mixed, createdAt: Date },
        // minimize: false keeps empty objects inside events (e.g. `agentactionspermitted: {}`).
        { versionKey: false, minimize: false },
      ),
    ],
    default: [],
  },
  outboxSeq: { type: Number, default: 0 },
  outboxPending: { type: Boolean, index: true },
};

/** Fields of a document that stages entries as it is inserted: `{ ...state, ...stagedFields(entries) }`. */
export function stagedFields(entries: OutboxEntry[]): {
  outbox: OutboxEntry[];
  outboxSeq: number;
  outboxPending?: true;
} {
  return { outbox: entries, outboxSeq: entries.length, ...(entries.length ? { outboxPending: true as const } : {}) };
}

/** A MongoDB update document (the operators this suite uses). */
export type UpdateDoc = {
  $set?: Record<string, unknown>;
  $inc?: Record<string, number>;
  $push?: Record<string, unknown>;
  [op: string]: unknown;
};

/**
 * Adds events to an update so the state change and its pending events are one single-document
 * write: `Model.updateOne(filter, withEvents({ $set: {...} }, topic, events))`. Works on MongoDB
 * and on stores without multi-document transactions.
 */
export function withEvents(update: UpdateDoc, topic: string, events: CloudEvent[]): UpdateDoc {
  const entries = outboxEntries(topic, events);
  return {
    ...update,
    $set: { ...(update.$set ?? {}), outboxPending: true },
    $push: { ...(update.$push ?? {}), outbox: { $each: entries } },
    $inc: { ...(update.$inc ?? {}), outboxSeq: entries.length },
  };
}

/** Outbox entries for events, e.g. for a document being inserted: `{ ...state, outbox: outboxEntries(topic, events) }`. */
export function outboxEntries(topic: string, events: CloudEvent[]): OutboxEntry[] {
  const now = new Date();
  return events.map((event) => ({ _id: event.id, topic, event: JSON.stringify(event), createdAt: now }));
}

/** What a write left pending in a document's outbox (returned by the write itself, so no re-read). */
export interface Staged {
  entries: OutboxEntry[];
  seq: number;
}

/**
 * Whether a later publication of the document is queued in this process (see `EagerPublisher`): one registered for
 * the outbox a write left at a higher `outboxSeq` than `seq`. That publication sends everything the document holds
 * by then (the entries a missed clear left included) and clears it, or hands it to the relay's retry: a publication
 * whose clear missed may leave the document to it instead of flushing it too.
 */
export type Superseded = (id: unknown, seq: number) => boolean;

/** The relay's clear, at the `outboxSeq` it published: nothing was staged since, so nothing is pending. */
const cleared = { $set: { outbox: [], outboxPending: false } };

/** Most documents the relay remembers as failing (see `OutboxRelay.failing`); the longest-known are forgotten first. */
const maxFailing = 10_000;

/** Most released documents one sweep tracks by name (see `OutboxRelay.sweepWatches`); past it, it reads all again. */
const maxReleased = 10_000;

/** Most operations in one bulk write (larger bulks stall FerretDB). */
const bulkChunk = 50;

/** Documents flushed at once after a bulk clear found some changed. */
const flushWidth = 8;

/** Any aggregate model that spreads {@link outboxField} into its schema. */
// biome-ignore lint/suspicious/noExplicitAny: aggregates differ in their other fields
export type OutboxModel = Model<any>;
type OutboxView = { _id: unknown; outbox?: OutboxEntry[]; outboxSeq?: number };

/**
 * The relay works on the driver collection, below mongoose middleware: it addresses documents by
 * `_id` only, which the tenancy guard would (rightly) refuse from application code.
 */
function byId(id: unknown): mongo.Filter<mongo.Document> {
  return { _id: id } as mongo.Filter<mongo.Document>;
}

/** One document of one outbox collection, as the relay and the eager publisher track it: `<collection>:<id>`. */
export function outboxKey(model: OutboxModel, id: unknown): string {
  return `${model.collection.name}:${String(id)}`;
}

function raw(model: OutboxModel): mongo.Collection {
  return model.collection as unknown as mongo.Collection;
}

/**
 * Publishes staged events: eagerly right after a write (through the `EagerPublisher`), again on a timer when
 * that failed or was skipped ({@link OutboxRelay.later}: the document is known, so no scan), and in a slow
 * safety sweep for what nobody in this process knows of (another instance crashed between its write and its
 * publish). Nothing polls the store faster than the sweep. Entries leave the document only after Kafka
 * acknowledged them.
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;
  private closing = false;
  /** Documents to flush at a known time, each with the controller that cancels its wait: key `<collection>:<id>`. */
  private readonly retries = new Map<string, AbortController>();
  /** Every wait or retry in progress (some are no longer in {@link retries} while they flush), for stop(). */
  private readonly cancels = new Set<AbortController>();
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * Documents this process publishes itself (an eager publication queued or running), with how many holds each
   * has: the sweep passes them. Under a burst an eager publication can wait in its queue longer than the grace
   * period; the sweep sending it too would publish every such event twice and double the store's writes.
   */
  private readonly held = new Map<string, number>();
  /**
   * Documents a sweep found holding an event that fails its schema (this version cannot publish it; a newer one
   * may): how often in a row, and the last sweep that passes them. Later sweeps pass such a document for 1, 2, then
   * 4 sweeps, rather than reading and validating it again each time. Per process; an entry goes when the document is
   * published.
   */
  private readonly failing = new Map<string, { failures: number; passUntil: number }>();
  private sweeps = 0;
  /**
   * One set per sweep in progress, of the documents whose hold ended since that sweep began: what the sweep's
   * cursor read of them (a whole batch ahead) may have been sent and cleared since, so the sweep reads them again.
   */
  private readonly sweepWatches = new Set<Set<string>>();

  constructor(
    private readonly opts: {
      models: OutboxModel[];
      producer: EventProducer;
      logger: Logger;
      metrics?: Metrics;
      /**
       * How often the safety sweep scans the outbox collections for entries older than the grace period
       * (default 30 s). Only a crashed writer's entries wait for it; this process's own are retried on timers.
       */
      sweepMs?: number;
      /** Entries younger than this are left to the eager publish (default 2000 ms); also the first retry delay. */
      graceMs?: number;
      /** Documents one sweep reads at once per collection (default 100). */
      batchSize?: number;
      /** Most batches of `batchSize` one sweep reads per collection (default 100); the next sweep goes on. */
      maxBatches?: number;
    },
  ) {}

  private get graceMs(): number {
    return this.opts.graceMs ?? 2000;
  }

  private get sweepMs(): number {
    return this.opts.sweepMs ?? 30_000;
  }

  /** Publishes everything pending on one document, in order, then removes what was sent; returns how many it sent. */
  async flush(model: OutboxModel, id: unknown): Promise<number> {
    const doc = (await raw(model).findOne(byId(id), { projection: { outbox: 1, outboxSeq: 1 } })) as OutboxView | null;
    return doc?.outbox?.length ? this.publishStaged(model, id, doc.outbox, doc.outboxSeq ?? 0) : 0;
  }

  /**
   * Flushes one document after a delay (default: the grace period), retrying with the `outbox` retry policy (capped
   * at the sweep interval) until it succeeds: for a write whose eager publish failed or was turned off.
   */
  later(model: OutboxModel, id: unknown, delayMs?: number): void {
    if (this.closing) return; // stopping: the next start's sweep publishes it
    const key = outboxKey(model, id);
    if (this.retries.has(key)) return; // already due; that flush reads the whole outbox
    const cancel = new AbortController();
    this.retries.set(key, cancel);
    this.cancels.add(cancel);
    const { signal } = cancel;
    const run = delay(delayMs ?? this.graceMs, { signal, unref: true })
      .then(() =>
        retry(
          async () => {
            // While flushing, a new write's later() arms its own wait (this flush may have read before that write).
            if (this.retries.get(key) === cancel) this.retries.delete(key);
            const release = this.hold(model, [id]); // the sweep passes it while this flush runs
            try {
              await this.orSetAside(model, id, () => this.flush(model, id));
            } catch (err) {
              if (this.retries.has(key))
                cancel.abort(new Error('superseded')); // the newer wait retries instead
              else this.retries.set(key, cancel);
              throw err;
            } finally {
              release();
            }
          },
          {
            policy: { ...retryPolicies.outbox, minDelayMs: this.graceMs * 2, maxDelayMs: this.sweepMs },
            // An event that fails its schema fails the same way every time: left to the sweep, which passes it for a
            // while (what can never be published was set aside above, and the rest sent).
            retryable: (err) => !(err instanceof InvalidEventError),
            what: 'outbox retry',
            logger: this.opts.logger.child({ collection: model.collection.name }),
            signal,
          },
        ),
      )
      .catch((err) => {
        // Cancelled: published meanwhile, superseded or stopping. Anything else is left to the sweep.
        if (!signal.aborted)
          this.opts.logger.error(
            { err: (err as Error).message, collection: model.collection.name },
            'outbox retry gave up',
          );
      })
      .finally(() => {
        if (this.retries.get(key) === cancel) this.retries.delete(key);
        this.cancels.delete(cancel);
      });
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  /**
   * Marks documents as published by this process until the returned function is called (once; later calls do
   * nothing): the sweep passes them. Whatever fails must be handed to {@link later} before the hold ends.
   */
  hold(model: OutboxModel, ids: unknown[]): () => void {
    const keys = ids.map((id) => outboxKey(model, id));
    for (const k of keys) this.held.set(k, (this.held.get(k) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const watch of this.sweepWatches) if (watch.size < maxReleased) for (const k of keys) watch.add(k);
      for (const k of keys) {
        const n = (this.held.get(k) ?? 1) - 1;
        if (n > 0) this.held.set(k, n);
        else this.held.delete(k);
      }
    };
  }

  /** Cancels a pending {@link later} of the document: it was published by other means. */
  forget(model: OutboxModel, id: unknown): void {
    const key = outboxKey(model, id);
    this.retries.get(key)?.abort(new Error('published'));
    this.retries.delete(key);
  }

  /**
   * One sweep over every model; returns how many events it published. `pendingOnly` reads only documents
   * flagged `outboxPending` (an indexed equality: the periodic sweeps); without it, every document with an
   * entry older than the grace period (a range the store may evaluate by scanning: the start-up sweeps, which
   * also find entries a version before the flag staged). Each collection is read through one cursor, `batchSize`
   * documents at a time, up to `batchSize` × `maxBatches` documents: a crashed writer's or a broker outage's
   * backlog goes out in one sweep rather than one batch per sweep, and a scanning query runs once per sweep. A
   * document whose entries cannot be published now is logged and kept, and the sweep goes on past it (one holding an
   * event that fails its schema is passed by the next 1, 2, then 4 sweeps); an entry that can never be published
   * (refused by the broker for good, unreadable) is set aside and the rest of its document sent ({@link setAside});
   * `batchSize` other failures in a row (the broker is down, most likely) end that collection's sweep.
   */
  async runOnce(graceMs = this.graceMs, { pendingOnly = false }: { pendingOnly?: boolean } = {}): Promise<number> {
    const released = new Set<string>();
    this.sweepWatches.add(released);
    try {
      return await this.sweepEach(++this.sweeps, released, graceMs, pendingOnly);
    } finally {
      this.sweepWatches.delete(released);
    }
  }

  private async sweepEach(sweep: number, released: Set<string>, graceMs: number, pendingOnly: boolean) {
    let published = 0;
    const cutoff = new Date(Date.now() - graceMs);
    const limit = this.opts.batchSize ?? 100;
    const most = limit * (this.opts.maxBatches ?? 100);
    for (const model of this.opts.models) {
      const old = { 'outbox.createdAt': { $lte: cutoff } };
      const cursor = raw(model)
        .find(pendingOnly ? { outboxPending: true, ...old } : old, { projection: { outbox: 1, outboxSeq: 1 } })
        .batchSize(limit)
        .limit(most);
      let found = 0;
      let failedInARow = 0;
      try {
        for await (const doc of cursor as AsyncIterable<OutboxView>) {
          if (this.closing || failedInARow >= limit) break;
          if (!doc.outbox?.length) continue;
          found += doc.outbox.length;
          // This process publishes it already (eagerly, or on its retry timer).
          const key = outboxKey(model, doc._id);
          if (this.held.has(key) || this.retries.has(key)) continue;
          const failing = this.failing.get(key);
          if (failing && sweep <= failing.passUntil) continue; // invalid lately: its turn comes back
          // Held while the sweep sends it: another sweep of this relay passes it, or reads it again after.
          const release = this.hold(model, [doc._id]);
          try {
            // A document this process published while the sweep ran is read again: what the cursor read of it
            // may have been sent and cleared since (past maxReleased such documents, every one is read again).
            const outbox = doc.outbox;
            published += await this.orSetAside(model, doc._id, () =>
              released.has(key) || released.size >= maxReleased
                ? this.flush(model, doc._id)
                : this.publishStaged(model, doc._id, outbox, doc.outboxSeq ?? 0),
            );
            failedInARow = 0;
          } catch (err) {
            // One document's bad or unpublishable event must not stall every other document's. An invalid event
            // fails the same way every time, before any network call: it does not count towards the failures in
            // a row that end the sweep (a broker outage), so no number of such documents keeps a sweep from the
            // rest; it is passed for a while instead.
            if (err instanceof InvalidEventError) {
              const failures = (failing?.failures ?? 0) + 1;
              this.failing.delete(key); // re-inserted last: the oldest entry goes first when the map is full
              this.failing.set(key, { failures, passUntil: sweep + Math.min(2 ** (failures - 1), 4) });
              if (this.failing.size > maxFailing) this.failing.delete(this.failing.keys().next().value as string);
            } else failedInARow++;
            this.opts.logger.error(
              { err: (err as Error).message, collection: model.collection.name, id: String(doc._id) },
              'outbox entry not published',
            );
          } finally {
            release();
            released.delete(key); // this sweep is past it (its own release told it too)
          }
        }
      } finally {
        await cursor.close();
      }
      this.opts.metrics?.outboxPending.set({ collection: model.collection.name }, found);
    }
    return published;
  }

  /**
   * Starts the safety sweep: once now and once more after the grace period (a predecessor's entries that were
   * still young at start), both over every document, then every `sweepMs` over the flagged ones only.
   */
  start(): void {
    if (!this.opts.models.length) return;
    this.stopped = false;
    this.closing = false;
    let sweeps = 0;
    const sweep = (next: number) => async () => {
      if (this.stopped) return;
      this.running = this.runOnce(this.graceMs, { pendingOnly: ++sweeps > 2 })
        .then((n) => {
          if (n) this.opts.logger.info({ published: n }, 'outbox sweep published pending events');
        })
        .catch((err) => this.opts.logger.warn({ err: (err as Error).message }, 'outbox sweep failed'));
      await this.running;
      if (!this.stopped) this.timer = setTimeout(sweep(this.sweepMs), next);
    };
    this.timer = setTimeout(sweep(this.graceMs + 100), 0);
  }

  /** Stops the sweep and the retry timers and waits for work in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.closing = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const cancel of this.cancels) cancel.abort(new Error('stopping'));
    this.retries.clear();
    await this.running;
    await Promise.all([...this.inFlight]);
    clearTimeout(this.timer);
  }

  /** Runs a sweep's publication of one document; when an entry can never be published, {@link setAside} instead. */
  private async orSetAside(model: OutboxModel, id: unknown, publish: () => Promise<number>): Promise<number> {
    try {
      return await publish();
    } catch (err) {
      if (!neverPublishable(err)) throw err;
      return this.setAside(model, id, err instanceof RefusedEventError ? err.published : []);
    }
  }

  /**
   * One document's outbox, an entry at a time and in order: publishes what the broker takes, moves what can never be
   * published (an event the broker refuses for good, text that is not JSON) to {@link deadLetterCollection} with
   * the reason, then clears the outbox if nothing was staged since (else reads it again for the rest). Entries stay
   * in the document until their dead letter is written, so a crash in between writes it again (same `_id`). Any
   * other failure (the broker is down, an event fails its schema: during a rolling upgrade a newer instance may
   * publish what this one's schemas refuse) leaves the document as it is and throws. `published`: ids of its entries
   * an attempt just before did send (not sent again). Returns how many were sent, those included.
   */
  async setAside(model: OutboxModel, id: unknown, published: readonly string[] = []): Promise<number> {
    const done = new Set<string>(published);
    let sent = published.length;
    const collection = model.collection.name;
    for (let round = 0; round < 5; round++) {
      const doc = (await raw(model).findOne(byId(id), {
        projection: { outbox: 1, outboxSeq: 1 },
      })) as OutboxView | null;
      const pending = (doc?.outbox ?? []).filter((e) => !done.has(e._id));
      if (!doc || !pending.length) break;
      const letter = (entry: OutboxEntry, reason: string, refusal: string | null, type: string | null) => ({
        _id: `${collection}:${String(id)}:${entry._id}`,
        collection,
        documentId: String(id),
        eventId: entry._id,
        topic: entry.topic,
        type,
        event: entry.event,
        reason,
        refusal,
        stagedAt: entry.createdAt,
        setAsideAt: new Date(),
      });
      const dead: OutboxDeadLetter[] = [];
      const readable: { entry: OutboxEntry; event: CloudEvent }[] = [];
      for (const entry of pending) {
        try {
          readable.push({ entry, event: entryEvent(entry) });
        } catch (err) {
          if (!(err instanceof UnreadableEntryError)) throw err;
          dead.push(letter(entry, `${err.message}: ${err.detail}`, null, null));
        }
      }
      // Every readable event is checked before the first send, as publishStaged does: one that fails its schema
      // leaves the document as it is, and nothing of it goes out again with each retry.
      this.opts.producer.assertValid(readable.map((r) => r.event));
      for (const { entry, event } of readable) {
        try {
          await this.opts.producer.publish(entry.topic, [event]);
          sent++;
        } catch (err) {
          if (!(err instanceof RefusedEventError)) throw err;
          dead.push(letter(entry, err.message, err.refusal, typeof event.type === 'string' ? event.type : null));
        }
      }
      for (const entry of pending) done.add(entry._id);
      if (dead.length) await this.writeDeadLetters(model, dead);
      const clear = await raw(model).updateOne({ ...byId(id), outboxSeq: doc.outboxSeq ?? 0 }, cleared);
      if (clear.matchedCount === 1) break;
    }
    this.failing.delete(outboxKey(model, id));
    return sent;
  }

  /**
   * Writes dead letters, then logs and counts those it wrote: a letter already there (an attempt a crash or a
   * concurrent sweep cut short wrote it) is left as it is. Any other failure throws, and the entries stay.
   */
  private async writeDeadLetters(model: OutboxModel, dead: OutboxDeadLetter[]): Promise<void> {
    const letters = model.db.collection<OutboxDeadLetter>(deadLetterCollection);
    let already = new Set<number>();
    try {
      await letters.insertMany(dead, { ordered: false });
    } catch (err) {
      // Only duplicate keys, each one a letter written before. A network error or a write concern error also
      // comes as a MongoBulkWriteError, with no write error of its own: rethrown, so no entry leaves without its letter.
      const isBulk = err instanceof mongo.MongoBulkWriteError;
      const writeErrors = isBulk ? (err.writeErrors as mongo.WriteError[] | mongo.WriteError) : [];
      const list = Array.isArray(writeErrors) ? writeErrors : [writeErrors];
      const duplicatesOnly =
        isBulk &&
        list.length > 0 &&
        list.every((w) => w.code === 11000) &&
        !err.err &&
        !err.result.getWriteConcernError();
      if (!duplicatesOnly) throw err;
      already = new Set(list.map((w) => w.index));
    }
    dead.forEach((d, i) => {
      if (already.has(i)) return;
      const { collection, topic } = d;
      this.opts.metrics?.outboxSetAside.inc({ collection, topic });
      // The event is not logged, nor a parser's message (it may quote the text): names, ids and the refusal say
      // which and why; the letter holds the rest.
      this.opts.logger.error(
        {
          collection,
          id: d.documentId,
          eventId: d.eventId,
          topic,
          type: d.type,
          refusal: d.refusal,
          reason: d.refusal ? d.reason : 'unparseable event text',
        },
        `outbox entry set aside in ${deadLetterCollection}: it can never be published`,
      );
    });
  }

  /**
   * Several new documents' staged events at once (see `EagerPublisher.soonMany`): one produce call per topic,
   * each document's entries in order, then one bulk clear (documents changed meanwhile are flushed on their own,
   * unless a later publication registered in this process covers them: `superseded`).
   */
  async publishStagedMany(
    model: OutboxModel,
    items: { id: unknown; staged: Staged }[],
    superseded?: Superseded,
  ): Promise<void> {
    const byTopic = new Map<string, CloudEvent[]>();
    for (const { staged } of items)
      for (const e of staged.entries) {
        const list = byTopic.get(e.topic) ?? [];
        list.push(entryEvent(e));
        byTopic.set(e.topic, list);
      }
    if (byTopic.size > 1) this.opts.producer.assertValid([...byTopic.values()].flat()); // all or none is sent
    for (const [topic, events] of byTopic) await this.opts.producer.publish(topic, events);
    const stale: unknown[] = [];
    // Bounded bulks: a large bulk write stalls FerretDB for everyone.
    for (let i = 0; i < items.length; i += bulkChunk) {
      const chunk = items.slice(i, i + bulkChunk);
      const res = await raw(model).bulkWrite(
        chunk.map(({ id, staged }) => ({
          updateOne: { filter: { ...byId(id), outboxSeq: staged.seq }, update: cleared },
        })),
        { ordered: false },
      );
      if (res.matchedCount !== chunk.length)
        stale.push(...chunk.filter((c) => !superseded?.(c.id, c.staged.seq)).map((c) => c.id));
    }
    // Some document of a chunk changed meanwhile (a later write staged more; not rare when routing offers an
    // interaction while its creation is being published): each document of that chunk is flushed, which sends what
    // it holds now, a few at once — except those a publication registered in this process for a later write covers
    // (`superseded`): it sends the whole outbox that write left and clears it (or hands it to the retry), so a
    // flush first only sent every event twice (under a burst of offers, a produce call and two store commands
    // each, which stalled the offers). One after another, a chunk of 50 held every later publication of these
    // documents for seconds.
    // Once each: a document in the group twice (two writes' publications merged) must not be flushed beside itself,
    // which could send an older event after a newer one.
    await this.flushAll(model, [...new Map(stale.map((id) => [String(id), id])).values()]);
  }

  /**
   * Flushes these documents (distinct ids), `flushWidth` at a time; a worker stops at its first failure. Once every
   * worker has settled (so a later publication of one of them cannot start while another is still being flushed), the
   * first failure in worker order is thrown: the caller hands every document of the group to the relay's retry.
   */
  private async flushAll(model: OutboxModel, ids: unknown[]): Promise<void> {
    let next = 0;
    const runs = await Promise.allSettled(
      Array.from({ length: Math.min(flushWidth, ids.length) }, async () => {
        while (next < ids.length) await this.flush(model, ids[next++]);
      }),
    );
    const failed = runs.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Publishes entries read from (or just written to) one document, in order, then clears them if nothing was staged
   * since (`outboxSeq` unchanged); otherwise reads the document again and sends the rest. Returns how many it sent.
   */
  async publishStaged(
    model: OutboxModel,
    id: unknown,
    entries: OutboxEntry[],
    seq: number,
    superseded?: Superseded,
  ): Promise<number> {
    const sent = new Set<string>();
    for (let round = 0; round < 5; round++) {
      const pending = entries.filter((e) => !sent.has(e._id));
      const events = pending.map(entryEvent);
      // Several topics: every event is checked before the first send, so an invalid one sends nothing (else the
      // runs before it would go out again with every retry). One topic: publish checks them all before sending.
      if (pending.some((e) => e.topic !== pending[0]?.topic)) this.opts.producer.assertValid(events);
      // Consecutive entries of one topic go in one send, keeping the document's order.
      let i = 0;
      while (i < pending.length) {
        const topic = pending[i]?.topic;
        const from = i;
        for (; i < pending.length && pending[i]?.topic === topic; i++);
        try {
          await this.opts.producer.publish(topic as string, events.slice(from, i));
        } catch (err) {
          if (err instanceof RefusedEventError) err.published = [...sent, ...err.published];
          throw err;
        }
        for (const e of pending.slice(from, i)) sent.add(e._id);
      }
      // Clear only if nothing was staged since we read the entries; otherwise read again and send the rest.
      const done = await raw(model).updateOne({ ...byId(id), outboxSeq: seq }, cleared);
      if (done.matchedCount === 1) {
        this.failing.delete(outboxKey(model, id)); // published at last: its invalid event was removed
        return sent.size;
      }
      // A later publication of this process covers the rest (it sends the whole outbox its write left, then clears).
      if (superseded?.(id, seq)) return sent.size;
      const fresh = (await raw(model).findOne(byId(id), {
        projection: { outbox: 1, outboxSeq: 1 },
      })) as OutboxView | null;
      if (!fresh?.outbox?.length) {
        this.failing.delete(outboxKey(model, id)); // cleared by another publication
        return sent.size;
      }
      entries = fresh.outbox;
      seq = fresh.outboxSeq ?? 0;
    }
    return sent.size;
  }
}

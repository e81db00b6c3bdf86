import type { Logger, Metrics } from '@cc/kit';
import { type Model, type mongo, Schema } from 'mongoose';
import type { CloudEvent } from './envelope';
import type { EventProducer } from './producer';

/** An event waiting in its aggregate's document until it is on Kafka. */
export interface OutboxEntry {
  /** The event id. */
  _id: string;
  topic: string;
  event: CloudEvent;
  createdAt: Date;
}

/**
 * Mongoose schema fragment for the outbox; add it to every aggregate that emits events. `outboxSeq`
 * counts stagings so the relay can clear what it published without `$pull` conditions, which
 * MongoDB-compatible stores such as FerretDB 1.x do not apply.
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
};

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
    $push: { ...(update.$push ?? {}), outbox: { $each: entries } },
    $inc: { ...(update.$inc ?? {}), outboxSeq: entries.length },
  };
}

/** Outbox entries for events, e.g. for a document being inserted: `{ ...state, outbox: outboxEntries(topic, events) }`. */
export function outboxEntries(topic: string, events: CloudEvent[]): OutboxEntry[] {
  const now = new Date();
  return events.map((event) => ({ _id: event.id, topic, event, createdAt: now }));
}

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

function raw(model: OutboxModel): mongo.Collection {
  return model.collection as unknown as mongo.Collection;
}

/**
 * Publishes staged events: eagerly right after a write ({@link OutboxRelay.flush}) and, in a loop,
 * whatever is still pending after a grace period (a crash between write and publish loses nothing).
 * Entries leave the document only after Kafka acknowledged them.
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly opts: {
      models: OutboxModel[];
      producer: EventProducer;
      logger: Logger;
      metrics?: Metrics;
      /** How often the relay looks for pending events (default 1000 ms). */
      intervalMs?: number;
      /** Entries younger than this are left to the eager publish (default 2000 ms). */
      graceMs?: number;
      batchSize?: number;
    },
  ) {}

  /** Publishes everything pending on one document, in order, then removes what was sent. */
  async flush(model: OutboxModel, id: unknown): Promise<void> {
    const doc = (await raw(model).findOne(byId(id), { projection: { outbox: 1, outboxSeq: 1 } })) as OutboxView | null;
    if (doc?.outbox?.length) await this.publishDoc(model, id, doc.outbox, doc.outboxSeq ?? 0);
  }

  /** Like {@link flush} but never throws: the relay retries later. Use right after the write. */
  async flushSoon(model: OutboxModel, id: unknown): Promise<void> {
    await this.flush(model, id).catch((err) =>
      this.opts.logger.warn(
        { err: (err as Error).message, collection: model.collection.name },
        'eager publish failed; relay will retry',
      ),
    );
  }

  /** One relay pass over every model; returns how many events it published. */
  async runOnce(): Promise<number> {
    let published = 0;
    const cutoff = new Date(Date.now() - (this.opts.graceMs ?? 2000));
    for (const model of this.opts.models) {
      const docs = (await raw(model)
        .find({ 'outbox.createdAt': { $lte: cutoff } }, { projection: { outbox: 1, outboxSeq: 1 } })
        .limit(this.opts.batchSize ?? 100)
        .toArray()) as OutboxView[];
      this.opts.metrics?.outboxPending.set({ collection: model.collection.name }, docs.length);
      for (const doc of docs) {
        if (!doc.outbox?.length) continue;
        try {
          await this.publishDoc(model, doc._id, doc.outbox, doc.outboxSeq ?? 0);
          published += doc.outbox.length;
        } catch (err) {
          // One document's bad or unpublishable event must not stall every other document's.
          this.opts.logger.error(
            { err: (err as Error).message, collection: model.collection.name, id: String(doc._id) },
            'outbox entry not published',
          );
        }
      }
    }
    return published;
  }

  /** Starts the relay loop. */
  start(): void {
    const tick = async () => {
      this.running = this.runOnce()
        .then((n) => {
          if (n) this.opts.logger.info({ published: n }, 'outbox relay published pending events');
        })
        .catch((err) => this.opts.logger.warn({ err: (err as Error).message }, 'outbox relay pass failed'));
      await this.running;
      this.timer = setTimeout(tick, this.opts.intervalMs ?? 1000);
    };
    this.timer = setTimeout(tick, this.opts.intervalMs ?? 1000);
  }

  /** Stops the loop and waits for a pass in progress. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    clearTimeout(this.timer);
  }

  private async publishDoc(model: OutboxModel, id: unknown, entries: OutboxEntry[], seq: number): Promise<void> {
    const sent = new Set<string>();
    for (let round = 0; round < 5; round++) {
      const pending = entries.filter((e) => !sent.has(e._id));
      // Consecutive entries of one topic go in one send, keeping the document's order.
      let i = 0;
      while (i < pending.length) {
        const topic = pending[i]?.topic;
        const run: OutboxEntry[] = [];
        for (; i < pending.length && pending[i]?.topic === topic; i++) run.push(pending[i] as OutboxEntry);
        await this.opts.producer.publish(
          topic as string,
          run.map((e) => e.event),
        );
        for (const e of run) sent.add(e._id);
      }
      // Clear only if nothing was staged since we read the entries; otherwise read again and send the rest.
      const cleared = await raw(model).updateOne({ ...byId(id), outboxSeq: seq }, { $set: { outbox: [] } });
      if (cleared.matchedCount === 1) return;
      const fresh = (await raw(model).findOne(byId(id), {
        projection: { outbox: 1, outboxSeq: 1 },
      })) as OutboxView | null;
      if (!fresh?.outbox?.length) return;
      entries = fresh.outbox;
      seq = fresh.outboxSeq ?? 0;
    }
  }
}

import type { Connection, Model } from 'mongoose';
import { Schema } from 'mongoose';
import type { Deduper } from './consumer';

interface ProcessedEvent {
  _id: string;
  at: Date;
}

const processedSchema = new Schema<ProcessedEvent>(
  { _id: String, at: { type: Date, index: true } },
  { versionKey: false },
);

/** The processed-events collection of a service's database (ids are `<group>:<event id>`). */
export function processedEventsModel(conn: Connection): Model<ProcessedEvent> {
  return (
    conn.models.ProcessedEvent ?? conn.model<ProcessedEvent>('ProcessedEvent', processedSchema, 'processed_events')
  );
}

/**
 * A {@link Deduper} backed by the service's own store. Handlers should be idempotent anyway: a
 * crash between the handler's write and `mark` redelivers the event once more.
 */
export function mongoDeduper(
  conn: Connection,
  groupId: string,
): Deduper & { expire(olderThan: Date): Promise<number> } {
  const model = processedEventsModel(conn);
  const key = (id: string) => `${groupId}:${id}`;
  return {
    async seenMany(eventIds) {
      // One `_id` equality per event, concurrently: the store serves each from the `_id` index, while
      // `$in` is not pushed down by FerretDB and would scan the ever-growing collection per batch.
      const found = await Promise.all(
        eventIds.map((id) => model.findOne({ _id: key(id) }, { _id: 1 }).lean<{ _id: string }>()),
      );
      return new Set(found.flatMap((d) => (d ? [d._id.slice(groupId.length + 1)] : [])));
    },
    async markMany(eventIds) {
      const at = new Date();
      await model.bulkWrite(
        eventIds.map((id) => ({
          updateOne: { filter: { _id: key(id) }, update: { $setOnInsert: { at } }, upsert: true },
        })),
        { ordered: false },
      );
    },
    // App-side expiry (no TTL indexes on the portable store subset).
    async expire(olderThan) {
      return (await model.deleteMany({ at: { $lt: olderThan } })).deletedCount;
    },
  };
}

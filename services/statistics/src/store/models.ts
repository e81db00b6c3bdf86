import { type Connection, type Model, Schema } from 'mongoose';

/**
 * Every collection of the statistics service is addressed by `_id` only: the one lookup every store of the
 * portable subset pushes down (FerretDB 1.24 pushes down no ranges, no `$in`, no sort). Time-ordered reads go
 * through hour buckets whose `_id` is `<account>|<hour>`; (account, start) and (account, updated) are those keys.
 */
// biome-ignore lint/suspicious/noExplicitAny: bucket documents are maps keyed by natural keys
type Doc = { _id: string; [field: string]: any };

const bucketSchema = () => new Schema<Doc>({ _id: String }, { strict: false, versionKey: false, autoIndex: false });

/** The statistics service's collections. */
export function statisticsModels(conn: Connection) {
  const model = (name: string, collection: string): Model<Doc> =>
    (conn.models[name] as Model<Doc>) ?? conn.model<Doc>(name, bucketSchema(), collection);
  return {
    /** `<account>|<start hour>`: `items` (finished activities) and `open` (running ones) by natural key. */
    ActivityBucket: model('ActivityBucket', 'activity_buckets'),
    /** `<account>|<start hour>`: `items`, the built interaction records by interaction id. */
    InteractionBucket: model('InteractionBucket', 'interaction_buckets'),
    /** `<account>|<interaction id>`: the interaction's events (`events.s<sequence>`), from which its record is built. */
    InteractionLog: model('InteractionLog', 'interaction_logs'),
    /** `<kind>|<account>|<hour>`: `refs` from a natural key to its start hour, for records ended or written in that hour. */
    StatRef: model('StatRef', 'stat_refs'),
    /** `<account>`: the oldest hour still stored (retention walks from it). */
    StatAccount: model('StatAccount', 'stat_accounts'),
  };
}

/** The models of {@link statisticsModels}. */
export type StatisticsModels = ReturnType<typeof statisticsModels>;

import { type Connection, type Model, Schema } from 'mongoose';

/**
 * Every collection of the statistics service is read by equality only (`_id`, or the indexed chunk group `g`): the
 * lookups the portable store subset pushes down (FerretDB 1.24 pushes down no ranges, no `$in`, no sort).
 * Time-ordered reads go through hour groups `<account>|<hour>`; (account, start) and (account, updated) are those keys.
 */
// biome-ignore lint/suspicious/noExplicitAny: bucket documents are maps keyed by natural keys
type Doc = { _id: string; [field: string]: any };

const bucketSchema = () => new Schema<Doc>({ _id: String }, { strict: false, versionKey: false, autoIndex: false });

/**
 * An insert-only chunk: what one flush wrote for one group key (`g`, e.g. `<account>|<hour>`), as one JSON string
 * in `data`. Chunks are only inserted (and merged now and then), never updated: the store applies an update by
 * rewriting the whole document under a global write lock, and converts a nested document field by field, while
 * it inserts a string at once. Read by equality on the indexed `g` (pushed down, a GIN index on PostgreSQL) and
 * merged in `v` order, the latest version of each key winning.
 */
export interface ChunkDoc {
  _id: string;
  g: string;
  v: number;
  data: string;
}
const chunkSchema = () => {
  const schema = new Schema<ChunkDoc>(
    { _id: String, g: { type: String, required: true }, v: { type: Number, required: true }, data: String },
    { versionKey: false, autoIndex: false },
  );
  schema.index({ g: 1 });
  return schema;
};

/**
 * The head of an activity chunk (same `_id`, `g`, `v`): how many activities it holds, readable without its data,
 * and found by the day (`d = <account>|<day>`): one lookup gives the counts of a day's 24 hours.
 */
export interface ChunkHeadDoc {
  _id: string;
  g: string;
  d: string;
  v: number;
  n: number;
}
const headSchema = () => {
  const schema = new Schema<ChunkHeadDoc>(
    { _id: String, g: { type: String, required: true }, d: { type: String, required: true }, v: Number, n: Number },
    { versionKey: false, autoIndex: false },
  );
  schema.index({ d: 1 });
  return schema;
};

/** The statistics service's collections. */
export function statisticsModels(conn: Connection) {
  const model = (name: string, collection: string): Model<Doc> =>
    (conn.models[name] as Model<Doc>) ?? conn.model<Doc>(name, bucketSchema(), collection);
  const chunks = (name: string, collection: string): Model<ChunkDoc> =>
    (conn.models[name] as Model<ChunkDoc>) ?? conn.model<ChunkDoc>(name, chunkSchema(), collection);
  return {
    /** Chunks of `g = <account>|<start hour>`: `{c, o}`, finished (`c`) and running (`o`) activities by natural key. */
    ActivityChunk: chunks('ActivityChunk', 'activity_chunks'),
    /**
     * One head per activity chunk: an hour held by one chunk has its count in its head, so a page of a long window
     * reads the data of the hours it shows only.
     */
    ActivityChunkHead:
      (conn.models.ActivityChunkHead as Model<ChunkHeadDoc>) ??
      conn.model<ChunkHeadDoc>('ActivityChunkHead', headSchema(), 'activity_chunk_heads'),
    /** Chunks of `g = <kind>|<account>|<hour>`: natural key → start hour, for items ended or written in that hour. */
    RefChunk: chunks('RefChunk', 'stat_ref_chunks'),
    /** `<account>|<start hour>`: `items`, the built interaction records by interaction id. */
    InteractionBucket: model('InteractionBucket', 'interaction_buckets'),
    /** `<account>|<interaction id>`: the interaction's events (`events.s<sequence>`), from which its record is built. */
    InteractionLog: model('InteractionLog', 'interaction_logs'),
    /** `<account>`: the oldest hour still stored (retention walks from it). */
    StatAccount: model('StatAccount', 'stat_accounts'),
  };
}

/** The models of {@link statisticsModels}. */
export type StatisticsModels = ReturnType<typeof statisticsModels>;

import { type OutboxEntry, outboxField } from '@cc/bus';
import { tenantScoped } from '@cc/store';
import { type Connection, type Model, Schema } from 'mongoose';
import type { CallTimeBreakDown } from '../domain/breakdown';
import type { CategoryMatch, CategoryRule } from '../domain/categories';

/**
 * Where a call's analysis is: `queued` (waiting for a worker), `running` (claimed under a lease),
 * `processed` or `failed`. The API shows queued and running as `processing`.
 */
export type JobState = 'queued' | 'running' | 'processed' | 'failed';

/** A segment of an `interaction.recorded` event (who spoke when, maybe what). */
export interface RecordedSegment {
  speaker: 'agent' | 'customer';
  startMs: number;
  endMs: number;
  text?: string;
}

/** One call's analysis: the work item and its result in one document (with the outbox of its events). */
export interface AnalysisDoc {
  /** `${accountId}:${guid}`: reads are `_id` lookups, which every store serves from its index. */
  _id: string;
  accountId: string;
  guid: string;
  recordingId: string;
  source: 'upload' | 'event';
  /** Upload: which stereo channel is the agent's, or `parts` for two mono files. */
  layout: 'left' | 'right' | 'parts' | null;
  /** Event: the segments as sent. */
  segments: RecordedSegment[];
  durationMs: number | null;
  /** Language from the recording's metadata (upload header or event), else null (the engine's applies). */
  language: string | null;
  state: JobState;
  attempts: number;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  result: {
    callTimeBreakDown: CallTimeBreakDown;
    transcript: string | null;
    confidence: 'High' | 'Medium' | 'Low' | null;
    language: string | null;
    categories: CategoryMatch[];
    processingMs: number;
    audioSeconds: number;
  } | null;
  reason: string | null;
  queuedAt: Date;
  updatedAt: Date;
  outbox: OutboxEntry[];
  outboxSeq: number;
}

const analysisSchema = new Schema<AnalysisDoc>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true },
    guid: { type: String, required: true },
    recordingId: { type: String, required: true },
    source: { type: String, required: true },
    layout: { type: String, default: null },
    segments: { type: Schema.Types.Mixed, default: [] },
    durationMs: { type: Number, default: null },
    language: { type: String, default: null },
    state: { type: String, required: true },
    attempts: { type: Number, default: 0 },
    leaseOwner: { type: String, default: null },
    leaseUntil: { type: Date, default: null },
    result: { type: Schema.Types.Mixed, default: null },
    reason: { type: String, default: null },
    queuedAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    ...outboxField,
  },
  { versionKey: false, minimize: false, collection: 'analyses' },
);
// The queue: workers claim by equality on state (the one filter every store pushes down).
analysisSchema.index({ state: 1 });
analysisSchema.plugin(tenantScoped);

/** An account's category rule set (one document per account). */
export interface CategorySetDoc {
  _id: string;
  accountId: string;
  rules: CategoryRule[];
  updatedAt: Date;
}

const categorySetSchema = new Schema<CategorySetDoc>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true },
    rules: { type: Schema.Types.Mixed, default: [] },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false, collection: 'category_sets' },
);
categorySetSchema.plugin(tenantScoped);

/** The analysis service's models on its connection. */
export function analysisModels(conn: Connection): { Analysis: Model<AnalysisDoc>; CategorySet: Model<CategorySetDoc> } {
  return {
    Analysis: conn.models.Analysis ?? conn.model<AnalysisDoc>('Analysis', analysisSchema),
    CategorySet: conn.models.CategorySet ?? conn.model<CategorySetDoc>('CategorySet', categorySetSchema),
  };
}

/** The `_id` of a call's analysis. */
export const analysisId = (accountId: string, guid: string) => `${accountId}:${guid}`;

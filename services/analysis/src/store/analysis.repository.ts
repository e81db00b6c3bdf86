import { type CloudEvent, type EagerPublisher, outboxEntries, stagedFields, withEvents } from '@cc/bus';
import { crossAccount, forAccount, isDuplicateKeyError } from '@cc/store';
import type { Model } from 'mongoose';
import type { CategoryRule } from '../domain/categories';
import { analysisTopic } from '../events/topics';
import { type AnalysisDoc, analysisId, type CategorySetDoc, type RecordedSegment } from './analysis.model';

/** What a new piece of work says about the recording. */
export interface NewWork {
  accountId: string;
  guid: string;
  recordingId: string;
  source: AnalysisDoc['source'];
  layout: AnalysisDoc['layout'];
  segments: RecordedSegment[];
  durationMs: number | null;
  language: string | null;
}

/** The outcome written when a job ends. */
export type JobOutcome =
  | { state: 'processed'; result: NonNullable<AnalysisDoc['result']>; event: CloudEvent }
  | { state: 'failed'; reason: string; event: CloudEvent };

/** The job queue's claims, leases and requeues span accounts (any worker takes any account's job). */
const queue = (m: Model<AnalysisDoc>) => crossAccount<AnalysisDoc>(m, 'job queue: claims and leases span accounts');

/**
 * The analyses collection: the work queue and the results in one document per call, each state change and
 * its event written together (outbox), claims under a renewable lease so a killed worker's job is taken up
 * again once its lease ends.
 */
export class AnalysisRepository {
  /**
   * Finished analyses (processed or failed) read recently, by `_id`: the hot read (`?calls=` polled for 50
   * calls) is answered from memory. Only finished states are kept, and only for `readCacheMs`, since a new
   * upload through another instance requeues a call (this instance's own uploads drop the entry at once).
   */
  private readonly cache = new Map<string, { doc: AnalysisDoc; until: number }>();

  constructor(
    private readonly Analysis: Model<AnalysisDoc>,
    private readonly CategorySet: Model<CategorySetDoc>,
    private readonly publisher: EagerPublisher,
    private readonly readCache: { ms: number; maxEntries: number } = { ms: 10_000, maxEntries: 10_000 },
  ) {}

  /** Forgets every cached read (benchmarks of the cold path). */
  clearCache(): void {
    this.cache.clear();
  }

  /**
   * Queues a call's analysis (new, or again after a new recording): state queued, the previous result and
   * lease dropped, `analysis.started` staged in the same write. A worker still busy with the old recording
   * loses its lease and its result is discarded.
   */
  async enqueue(work: NewWork, started: CloudEvent): Promise<void> {
    const _id = analysisId(work.accountId, work.guid);
    this.cache.delete(_id);
    const now = new Date();
    const set = {
      ...work,
      state: 'queued',
      attempts: 0,
      leaseOwner: null,
      leaseUntil: null,
      result: null,
      reason: null,
      queuedAt: now,
      updatedAt: now,
    };
    const res = await this.Analysis.updateOne(
      { _id, accountId: work.accountId },
      withEvents({ $set: set }, analysisTopic, [started]),
    );
    if (res.matchedCount === 0) {
      try {
        await forAccount(this.Analysis, work.accountId).insertOne({
          _id,
          ...set,
          ...stagedFields(outboxEntries(analysisTopic, [started])),
        } as never);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        // A concurrent first write won the insert: apply ours over it.
        await this.Analysis.updateOne(
          { _id, accountId: work.accountId },
          withEvents({ $set: set }, analysisTopic, [started]),
        );
      }
    }
    await this.publisher.soon(this.Analysis, _id);
  }

  /** Claims one queued job for `owner` until now + leaseMs; undefined when the queue is empty. */
  async claim(owner: string, leaseMs: number): Promise<AnalysisDoc | undefined> {
    const doc = await queue(this.Analysis).findOneAndUpdate(
      { state: 'queued' },
      {
        $set: {
          state: 'running',
          leaseOwner: owner,
          leaseUntil: new Date(Date.now() + leaseMs),
          updatedAt: new Date(),
        },
        $inc: { attempts: 1 },
      },
      { returnDocument: 'after' },
    );
    return (doc as AnalysisDoc | null) ?? undefined;
  }

  /** Extends a running job's lease; false when the job is no longer this owner's. */
  async renew(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const res = await queue(this.Analysis).updateOne(
      { _id: id, leaseOwner: owner, state: 'running' },
      { $set: { leaseUntil: new Date(Date.now() + leaseMs) } },
    );
    return res.matchedCount > 0;
  }

  /** Puts running jobs whose lease ended (their worker died) back in the queue; returns how many. */
  async requeueExpired(now = new Date()): Promise<number> {
    const res = await queue(this.Analysis).updateMany(
      { state: 'running', leaseUntil: { $lt: now } },
      { $set: { state: 'queued', leaseOwner: null, leaseUntil: null, updatedAt: now } },
    );
    return res.modifiedCount;
  }

  /** Gives a job back to the queue after a failed attempt (if `owner` still holds it). */
  async release(doc: AnalysisDoc, owner: string): Promise<void> {
    await queue(this.Analysis).updateOne(
      { _id: doc._id, leaseOwner: owner, state: 'running' },
      { $set: { state: 'queued', leaseOwner: null, leaseUntil: null, updatedAt: new Date() } },
    );
  }

  /** Ends a job with its result or failure and event, if `owner` still holds it; false otherwise. */
  async finish(doc: AnalysisDoc, owner: string, outcome: JobOutcome): Promise<boolean> {
    const set =
      outcome.state === 'processed'
        ? { state: 'processed', result: outcome.result, reason: null }
        : { state: 'failed', reason: outcome.reason, result: null };
    const res = await this.Analysis.updateOne(
      { _id: doc._id, accountId: doc.accountId, leaseOwner: owner, state: 'running' },
      withEvents({ $set: { ...set, leaseOwner: null, leaseUntil: null, updatedAt: new Date() } }, analysisTopic, [
        outcome.event,
      ]),
    );
    this.cache.delete(doc._id);
    if (res.matchedCount === 0) return false;
    await this.publisher.soon(this.Analysis, doc._id);
    return true;
  }

  /**
   * The analyses of the given calls, by GUID (missing ones absent): from the read cache, else one `_id`
   * lookup each, in parallel, because stores like FerretDB do not push `$in` down to the index.
   */
  async getMany(
    accountId: string,
    guids: readonly string[],
    withTranscript: boolean,
  ): Promise<Map<string, AnalysisDoc>> {
    const now = Date.now();
    const out = new Map<string, AnalysisDoc>();
    const missing: string[] = [];
    for (const guid of new Set(guids)) {
      const hit = this.cache.get(analysisId(accountId, guid));
      if (hit && hit.until > now) out.set(guid, hit.doc);
      else missing.push(guid);
    }
    const docs = await Promise.all(
      missing.map((guid) =>
        forAccount<AnalysisDoc>(this.Analysis, accountId).findOne(
          { _id: analysisId(accountId, guid) },
          { projection: { outbox: 0, outboxPending: 0, segments: 0 } },
        ),
      ),
    );
    for (const d of docs) {
      if (!d) continue;
      out.set(d.guid, d as AnalysisDoc);
      if (this.readCache.ms > 0 && (d.state === 'processed' || d.state === 'failed')) {
        if (this.cache.size >= this.readCache.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
        this.cache.set(d._id, { doc: d as AnalysisDoc, until: now + this.readCache.ms });
      }
    }
    if (!withTranscript) {
      for (const [g, d] of out)
        if (d.result?.transcript) out.set(g, { ...d, result: { ...d.result, transcript: null } });
    }
    return out;
  }

  /** The account's category rules ([] when none are configured). */
  async rules(accountId: string): Promise<CategoryRule[]> {
    const doc = await this.CategorySet.findOne({ _id: accountId, accountId }).lean();
    return (doc?.rules as CategoryRule[] | undefined) ?? [];
  }

  /** Replaces the account's category rules (applied to analyses that end from now on). */
  async setRules(accountId: string, rules: CategoryRule[]): Promise<void> {
    await this.CategorySet.updateOne(
      { _id: accountId, accountId },
      { $set: { rules, updatedAt: new Date() } },
      { upsert: true },
    );
  }
}

import { type OutboxEntry, outboxEntries } from '@cc/bus';
import { crossAccount, duplicateIndexes, forAccounts } from '@cc/store';
import type { Model, mongo } from 'mongoose';
import type { AttemptRecord, DeliveryDoc, NotifierModels } from './notifier.models';

/** Fields of a new delivery, as the consumer records it. */
export type NewDelivery = Pick<
  DeliveryDoc,
  | '_id'
  | 'accountId'
  | 'provider'
  | 'endpointKey'
  | 'interactionId'
  | 'interactionKey'
  | 'notification'
  | 'seq'
  | 'eventId'
  | 'body'
  | 'traceparent'
>;

/** An open delivery as recovery reads it (no attempts, no outbox). */
export type OpenDeliveryDoc = Omit<DeliveryDoc, 'attempts' | 'outbox'>;

/** One outcome write: the state after an attempt (or a decision without one), conditional on `version`. */
export interface OutcomeWrite {
  id: string;
  version: number;
  state: DeliveryDoc['state'];
  nextAttemptAt: Date | null;
  status: number | null;
  error: string | null;
  /** Attempt records to append (an interrupted one found at recovery, then this attempt). */
  attempts: AttemptRecord[];
  /** Attempts that count against the schedule (0 for a decision without a request). */
  attemptsMade: number;
  /** Events that could not be published before this write: staged in the outbox for the relay. */
  outbox: OutboxEntry[];
  at: Date;
}

/** Filters of the admin listing. */
export interface DeliveryListQuery {
  provider?: string;
  state?: DeliveryDoc['state'];
  since?: string;
  page: number;
  limit: number;
}

const recoveryProjection = { attempts: 0, outbox: 0, outboxPending: 0 };
const bulkChunk = 50;

/**
 * Reads and writes deliveries. One collection holds open and finished deliveries (`state` indexed;
 * finished ones expire by `finishedAt`). The pipeline writes twice per delivery on the happy path,
 * both batched across deliveries: the record (`insertMany`) and the outcome (`bulkWrite`). Its
 * writes address documents by `_id` (and `version`), on the driver collection below mongoose.
 */
export class DeliveryRepository {
  private readonly scoped: Model<DeliveryDoc>;
  /** The deliveries model as the outbox relay addresses it (by `_id`, below the tenancy guard). */
  readonly queue: Model<DeliveryDoc>;

  constructor(models: NotifierModels) {
    this.scoped = models.deliveries;
    this.queue = models.deliveries;
  }

  private get raw(): mongo.Collection<DeliveryDoc> {
    return crossAccount<DeliveryDoc>(this.scoped, 'delivery pipeline: batched writes by _id across accounts');
  }

  /** The document a new delivery is recorded as. */
  static newDoc(d: NewDelivery, now: Date, owner: string, leaseUntil: Date): DeliveryDoc {
    return {
      ...d,
      state: 'pending',
      nextAttemptAt: now,
      attempts: [],
      attemptCount: 0,
      cycleStartedAt: now,
      owner,
      leaseUntil,
      version: 0,
      lastStatus: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
      deliveredAt: null,
      deadAt: null,
      finishedAt: null,
      outbox: [],
      outboxSeq: 0,
    };
  }

  /**
   * Records new deliveries in one `insertMany` (unordered). Returns the ids that already existed: a
   * redelivered event maps to the same id, so it changes nothing.
   */
  async recordMany(docs: DeliveryDoc[]): Promise<Set<string>> {
    const existing = new Set<string>();
    if (docs.length === 0) return existing;
    try {
      // Each delivery names its account (checked): one insert for a batch of several accounts.
      await forAccounts<DeliveryDoc>(this.scoped).insertMany(docs as mongo.OptionalUnlessRequiredId<DeliveryDoc>[], {
        ordered: false,
      });
    } catch (err) {
      for (const i of duplicateIndexes(err)) existing.add((docs[i] as DeliveryDoc)._id);
    }
    return existing;
  }

  /**
   * Writes outcomes in one `bulkWrite` addressed by `_id` alone (FerretDB serves only `_id` filters
   * without a scan). Exclusivity comes from ownership: only the instance holding a delivery writes
   * its outcomes; takeovers and replays are conditional on the version, which each outcome bumps.
   * A write for a delivery this instance does not hold (`version` < 0, a duplicate record) keeps its
   * attempt records only.
   */
  async writeOutcomes(writes: OutcomeWrite[]): Promise<void> {
    // At most `bulkChunk` updates per command: the local FerretDB stalled on bulks of 100+ updates before.
    for (let i = 0; i < writes.length; i += bulkChunk) {
      await this.raw.bulkWrite(
        writes.slice(i, i + bulkChunk).map((w) => ({
          updateOne: {
            filter: { _id: w.id },
            update: w.version >= 0 ? outcomeUpdate(w) : { $push: { attempts: { $each: w.attempts } } },
          },
        })),
        { ordered: false },
      );
    }
  }

  /** Every open delivery (recovery at start and the safety sweep's takeover; equality on the indexed state). */
  async findOpen(): Promise<OpenDeliveryDoc[]> {
    const [pending, failed] = await Promise.all([
      this.raw.find({ state: 'pending' }, { projection: recoveryProjection }).toArray(),
      this.raw.find({ state: 'failed' }, { projection: recoveryProjection }).toArray(),
    ]);
    return [...pending, ...failed] as OpenDeliveryDoc[];
  }

  /**
   * Takes an open delivery over (its owner stopped): conditional on its version. `interrupted` adds
   * an attempt record saying an attempt may have been in progress when the owner stopped.
   */
  async takeOver(d: OpenDeliveryDoc, owner: string, leaseUntil: Date, interrupted?: AttemptRecord): Promise<boolean> {
    const res = await this.raw.updateOne(
      { _id: d._id, version: d.version },
      {
        $set: { owner, leaseUntil, updatedAt: new Date() },
        $inc: { version: 1 },
        ...(interrupted ? { $push: { attempts: interrupted } } : {}),
      },
    );
    return res.modifiedCount === 1;
  }

  /** Extends the lease of this owner's open deliveries (equality on the indexed owner). */
  async renewLeases(owner: string, leaseUntil: Date): Promise<void> {
    // A finished delivery has no owner, so the owner alone selects the open ones.
    await this.raw.updateMany({ owner }, { $set: { leaseUntil } });
  }

  /** Deletes up to `limit` deliveries finished before `before` (bounded: one read and one bulk delete). */
  async expireFinished(before: Date, limit: number): Promise<number> {
    const old = await this.raw
      .find({ finishedAt: { $lt: before } }, { projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    if (old.length === 0) return 0;
    const res = await this.raw.bulkWrite(
      old.map((d) => ({ deleteOne: { filter: { _id: d._id } } })),
      { ordered: false },
    );
    return res.deletedCount;
  }

  /** The latest AssignToAgent of an interaction (for a Release whose event names no agent). */
  async lastAssignment(accountId: string, interactionId: string): Promise<{ body: string } | null> {
    const found = await this.scoped
      .find({ accountId, interactionId, notification: 'AssignToAgent' }, { body: 1, seq: 1 })
      .lean<{ body: string; seq: number }[]>();
    return found.sort((x, y) => y.seq - x.seq)[0] ?? null;
  }

  /** One page of an account's deliveries (open and finished), newest first. */
  async list(accountId: string, q: DeliveryListQuery): Promise<{ items: DeliveryDoc[]; total: number }> {
    const filter: Record<string, unknown> = { accountId };
    if (q.provider) filter.provider = q.provider;
    if (q.state) filter.state = q.state;
    if (q.since) filter.createdAt = { $gte: new Date(q.since) };
    const all = await this.scoped.find(filter, { outbox: 0, outboxPending: 0, body: 0 }).lean<DeliveryDoc[]>();
    all.sort((a, b) => new Date(b.createdAt).getTime() - new Date(a.createdAt).getTime() || (a._id < b._id ? -1 : 1));
    return { items: all.slice((q.page - 1) * q.limit, q.page * q.limit), total: all.length };
  }

  /** One delivery of the account. */
  async get(accountId: string, id: string): Promise<DeliveryDoc | null> {
    return this.scoped.findOne({ accountId, _id: id }, { outbox: 0, outboxPending: 0 }).lean<DeliveryDoc>();
  }

  /**
   * Replays one delivery: pending again, due now, a fresh attempt cycle, owned by `owner`; its id (and
   * so its webhook-id) is unchanged. Returns the replayed document, or null when it changed concurrently.
   */
  async replayOne(d: DeliveryDoc, now: Date, owner: string, leaseUntil: Date): Promise<DeliveryDoc | null> {
    return this.scoped
      .findOneAndUpdate(
        { accountId: d.accountId, _id: d._id, version: d.version },
        {
          $set: {
            state: 'pending',
            nextAttemptAt: now,
            attemptCount: 0,
            cycleStartedAt: now,
            owner,
            leaseUntil,
            deadAt: null,
            finishedAt: null,
            updatedAt: now,
          },
          $inc: { version: 1 },
        },
        // No projection: FerretDB 1.x does not implement findAndModify's `fields`.
        { new: true },
      )
      .lean<DeliveryDoc>();
  }

  /** The provider's deliveries in the given states created since `since` (replay by provider). */
  async findForReplay(
    accountId: string,
    provider: string,
    since: Date,
    states: DeliveryDoc['state'][],
  ): Promise<DeliveryDoc[]> {
    const found = await this.scoped
      .find({ accountId, provider, createdAt: { $gte: since } }, { outbox: 0, outboxPending: 0, attempts: 0 })
      .lean<DeliveryDoc[]>();
    return found.filter((d) => states.includes(d.state));
  }
}

/** The version-checked update one outcome write sends (exported for its unit test). */
export function outcomeUpdate(w: OutcomeWrite): mongo.UpdateFilter<DeliveryDoc> {
  const finished = w.state === 'delivered' || w.state === 'dead';
  const $set: Record<string, unknown> = {
    state: w.state,
    nextAttemptAt: w.nextAttemptAt,
    lastStatus: w.status,
    lastError: w.error,
    updatedAt: w.at,
  };
  if (w.state === 'delivered') $set.deliveredAt = w.at;
  if (w.state === 'dead') $set.deadAt = w.at;
  if (finished) {
    $set.finishedAt = w.at;
    $set.owner = null;
    $set.leaseUntil = null;
  }
  const $push: Record<string, unknown> = {};
  if (w.attempts.length) $push.attempts = { $each: w.attempts };
  if (w.outbox.length) $push.outbox = { $each: w.outbox };
  const $inc: Record<string, number> = { version: 1 };
  if (w.attemptsMade) $inc.attemptCount = w.attemptsMade;
  if (w.outbox.length) {
    $inc.outboxSeq = w.outbox.length;
    $set.outboxPending = true;
  }
  return { $set, $inc, ...(Object.keys($push).length ? { $push } : {}) } as mongo.UpdateFilter<DeliveryDoc>;
}

/** Outbox entries for events that could not be published before their outcome write. */
export { outboxEntries };

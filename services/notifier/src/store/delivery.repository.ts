import { type CloudEvent, type OutboxEntry, outboxEntries } from '@cc/bus';
import type { Model } from 'mongoose';
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

/** An open delivery as the dispatcher scans it (no body, no attempts). */
export type DueDelivery = Omit<DeliveryDoc, 'body' | 'attempts' | 'outbox'>;

/** A claimed delivery: the scan fields plus the body to send. */
export type ClaimedDelivery = DueDelivery & { body: string };

/** The outcome write after an attempt (or a decision without an attempt). */
export interface DeliveryOutcome {
  state: DeliveryDoc['state'];
  nextAttemptAt: Date | null;
  status: number | null;
  error: string | null;
  /** The HTTP attempt to record, when one was made. */
  attempt?: AttemptRecord;
  /** Events to publish through the delivery's outbox: topic → events. */
  events: { topic: string; events: CloudEvent[] }[];
}

/** Filters of the admin listing. */
export interface DeliveryListQuery {
  provider?: string;
  state?: DeliveryDoc['state'];
  since?: string;
  page: number;
  limit: number;
}

const openStates = ['pending', 'failed'];
const open = { $in: openStates };
const interruptedError = 'interrupted: no outcome recorded (the notifier stopped during this attempt)';
const scanProjection = { body: 0, attempts: 0, outbox: 0 };

/**
 * Reads and writes deliveries. Open deliveries (pending, failed) live in `deliveries`, which the
 * dispatcher scans; finished ones (delivered, dead) are moved to `delivery_log` once their outcome
 * events are published, so that scan stays proportional to the open work (MongoDB-compatible stores
 * such as FerretDB 1.x scan whole collections for anything but `_id`). Every write of the dispatcher
 * addresses a document by `_id` (and its `version`).
 */
export class DeliveryRepository {
  private readonly scoped: Model<DeliveryDoc>;
  /** The open-deliveries collection without the tenancy guard, for the dispatcher and the outbox relay. */
  readonly queue: Model<DeliveryDoc>;
  private readonly log: Model<DeliveryDoc>;
  private readonly logSystem: Model<DeliveryDoc>;

  constructor(models: NotifierModels) {
    this.scoped = models.deliveries;
    this.queue = models.deliveryQueue;
    this.log = models.deliveryLog;
    this.logSystem = models.deliveryLogSystem;
  }

  /** Records a delivery once: a redelivered event finds it (open or finished) and changes nothing. */
  async record(d: NewDelivery, now: Date): Promise<boolean> {
    if (await this.log.exists({ accountId: d.accountId, _id: d._id })) return false;
    const res = await this.scoped.updateOne(
      { accountId: d.accountId, _id: d._id },
      {
        $setOnInsert: {
          ...d,
          state: 'pending',
          nextAttemptAt: now,
          attempts: [],
          attemptCount: 0,
          cycleStartedAt: now,
          heldBy: null,
          inFlight: null,
          version: 0,
          lastStatus: null,
          lastError: null,
          createdAt: now,
          updatedAt: now,
          deliveredAt: null,
          deadAt: null,
          outbox: [],
          outboxSeq: 0,
        },
      },
      { upsert: true },
    );
    return res.upsertedCount === 1;
  }

  /** The latest AssignToAgent of an interaction (for a Release whose event names no agent). */
  async lastAssignment(accountId: string, interactionId: string): Promise<{ body: string } | null> {
    const filter = { accountId, interactionId, notification: 'AssignToAgent' };
    const [a, b] = await Promise.all([
      this.scoped.find(filter, { body: 1, seq: 1 }).lean<{ body: string; seq: number }[]>(),
      this.log.find(filter, { body: 1, seq: 1 }).lean<{ body: string; seq: number }[]>(),
    ]);
    return [...a, ...b].sort((x, y) => y.seq - x.seq)[0] ?? null;
  }

  /** Every open delivery (one scan of the small open collection; the dispatcher picks due ones and applies ordering). */
  async findOpen(): Promise<DueDelivery[]> {
    return this.queue.find({ state: open }, scanProjection).lean<DueDelivery[]>();
  }

  /**
   * Claims a due delivery for one attempt (conditional on its version, so two instances never both
   * send it): its next attempt moves to the end of the lease, so if this process dies the delivery is
   * due again after the lease. An earlier claim that never recorded an outcome is logged as interrupted.
   */
  async claim(d: DueDelivery, now: Date, leaseUntil: Date, owner: string): Promise<ClaimedDelivery | null> {
    const update: Record<string, unknown> = {
      $set: { nextAttemptAt: leaseUntil, inFlight: { since: now, by: owner }, updatedAt: now },
      $inc: { version: 1 },
    };
    if (d.inFlight) {
      update.$push = { attempts: { at: d.inFlight.since, status: null, latencyMs: 0, error: interruptedError } };
    }
    // No projection: FerretDB 1.x does not implement findAndModify's `fields`.
    return this.queue
      .findOneAndUpdate({ _id: d._id, version: d.version, state: d.state }, update, { new: true })
      .lean<ClaimedDelivery>();
  }

  /** Gives a claim back without an attempt (e.g. the breaker rejected it), due again at `at`. */
  async unclaim(d: ClaimedDelivery, at: Date): Promise<void> {
    await this.queue.updateOne(
      { _id: d._id, version: d.version },
      { $set: { nextAttemptAt: at, inFlight: null, updatedAt: new Date() }, $inc: { version: 1 } },
    );
  }

  /**
   * Writes an outcome (state, next attempt, the attempt record and the outcome events, one document
   * write). If the claim was lost meanwhile (lease expired, replay), only the attempt is recorded.
   * Returns whether the claim still held and the deliveries waiting for this one.
   */
  async complete(
    d: ClaimedDelivery,
    outcome: DeliveryOutcome,
    now: Date,
  ): Promise<{ held: boolean; holding: string[] }> {
    const entries: OutboxEntry[] = outcome.events.flatMap((e) => outboxEntries(e.topic, e.events));
    const $set: Record<string, unknown> = {
      state: outcome.state,
      nextAttemptAt: outcome.nextAttemptAt,
      inFlight: null,
      lastStatus: outcome.status,
      lastError: outcome.error,
      updatedAt: now,
    };
    if (outcome.state === 'delivered') $set.deliveredAt = now;
    if (outcome.state === 'dead') $set.deadAt = now;
    const $push: Record<string, unknown> = {};
    if (outcome.attempt) $push.attempts = outcome.attempt;
    if (entries.length) $push.outbox = { $each: entries };
    const $inc: Record<string, number> = { version: 1 };
    if (outcome.attempt) $inc.attemptCount = 1;
    if (entries.length) $inc.outboxSeq = entries.length;
    const doc = await this.queue
      .findOneAndUpdate(
        { _id: d._id, version: d.version },
        { $set, $inc, ...(Object.keys($push).length ? { $push } : {}) },
        { new: true },
      )
      .lean<DeliveryDoc>();
    if (doc) return { held: true, holding: doc.holding ?? [] };
    if (outcome.attempt) await this.queue.updateOne({ _id: d._id }, { $push: { attempts: outcome.attempt } });
    return { held: false, holding: [] };
  }

  /**
   * Holds a delivery behind an earlier open one of its interaction until that finishes (or `recheckAt`).
   * The blocker learns of it first (only while it is open), so a blocker finishing in between still
   * lets it go: the hold is conditional on the version that the release bumps.
   */
  async hold(d: DueDelivery, blockerId: string, recheckAt: Date): Promise<void> {
    // Only while the blocker is open: if it finished meanwhile, the delivery stays due and goes next pass.
    const told = await this.queue.updateOne({ _id: blockerId, state: open }, { $push: { holding: d._id } });
    if (told.matchedCount === 0) return;
    await this.queue.updateOne(
      { _id: d._id, version: d.version },
      { $set: { heldBy: blockerId, nextAttemptAt: recheckAt }, $inc: { version: 1 } },
    );
  }

  /** Makes the given held deliveries due now (their blocker finished). */
  async release(ids: string[], now: Date): Promise<number> {
    let released = 0;
    for (const id of new Set(ids)) {
      const res = await this.queue.updateOne(
        { _id: id, state: open },
        { $set: { heldBy: null, nextAttemptAt: now }, $inc: { version: 1 } },
      );
      released += res.modifiedCount;
    }
    return released;
  }

  /** Moves still-due deliveries to `at` without an attempt (their endpoint's breaker is open). */
  async postpone(ids: string[], now: Date, at: Date): Promise<void> {
    if (ids.length === 0) return;
    // One `_id` update per delivery in one bulk write: `_id: {$in}` is not pushed down and would scan.
    await this.queue.bulkWrite(
      ids.map((_id) => ({
        updateOne: {
          filter: { _id, state: open, nextAttemptAt: { $lte: now } },
          update: { $set: { nextAttemptAt: at }, $inc: { version: 1 } },
        },
      })),
      { ordered: false },
    );
  }

  /**
   * Moves a finished delivery whose outcome events are published into the log (copy, then delete the
   * open copy; a crash in between leaves a finished copy that {@link sweepFinished} moves later).
   */
  async archive(id: string): Promise<void> {
    const doc = await this.queue.findById(id).lean<DeliveryDoc>();
    if (!doc || openStates.includes(doc.state) || (doc.outbox?.length ?? 0) > 0) return;
    const { outbox: _outbox, ...rest } = doc;
    await this.logSystem.replaceOne(
      { _id: id },
      { ...rest, outbox: [], outboxSeq: doc.outboxSeq ?? 0 },
      { upsert: true },
    );
    await this.queue.deleteOne({ _id: id, version: doc.version });
  }

  /** Archives finished deliveries left in the open collection (after a crash, or outbox still pending then). */
  async sweepFinished(): Promise<number> {
    const finished = await this.queue
      .find({ state: { $in: ['delivered', 'dead'] } }, { _id: 1 })
      .lean<{ _id: string }[]>();
    for (const f of finished) await this.archive(f._id);
    return finished.length;
  }

  /** Undelivered deliveries of a provider. */
  async countOpen(accountId: string, provider: string): Promise<number> {
    return this.scoped.countDocuments({ accountId, provider, state: open });
  }

  /** One page of an account's deliveries (open and finished), newest first. */
  async list(accountId: string, q: DeliveryListQuery): Promise<{ items: DeliveryDoc[]; total: number }> {
    const filter: Record<string, unknown> = { accountId };
    if (q.provider) filter.provider = q.provider;
    if (q.state) filter.state = q.state;
    if (q.since) filter.createdAt = { $gte: new Date(q.since) };
    const projection = { outbox: 0, body: 0 };
    const [openDocs, logged] = await Promise.all([
      this.scoped.find(filter, projection).lean<DeliveryDoc[]>(),
      this.log.find(filter, projection).lean<DeliveryDoc[]>(),
    ]);
    // An open copy (a replay in progress) wins over its logged copy.
    const byId = new Map<string, DeliveryDoc>();
    for (const d of [...logged, ...openDocs]) byId.set(d._id, d);
    const all = [...byId.values()].sort(
      (a, b) => new Date(b.createdAt).getTime() - new Date(a.createdAt).getTime() || (a._id < b._id ? -1 : 1),
    );
    return { items: all.slice((q.page - 1) * q.limit, q.page * q.limit), total: all.length };
  }

  /** One delivery of the account (open or finished). */
  async get(accountId: string, id: string): Promise<DeliveryDoc | null> {
    return (
      (await this.scoped.findOne({ accountId, _id: id }, { outbox: 0 }).lean<DeliveryDoc>()) ??
      (await this.log.findOne({ accountId, _id: id }, { outbox: 0 }).lean<DeliveryDoc>())
    );
  }

  /**
   * Replays one failed or finished delivery: pending again, due now, a fresh attempt cycle; its id
   * (and so its webhook-id) is unchanged. A finished one moves back from the log. Returns false when
   * it changed concurrently.
   */
  async replayOne(d: DeliveryDoc, now: Date): Promise<boolean> {
    const open = await this.scoped.updateOne(
      { accountId: d.accountId, _id: d._id, version: d.version },
      { $set: replaySet(now), $inc: { version: 1 } },
    );
    if (open.matchedCount === 1) return true;
    const logged = await this.log.findOne({ accountId: d.accountId, _id: d._id }).lean<DeliveryDoc>();
    if (!logged || logged.version !== d.version) return false;
    const { outbox: _o, _id: _i, ...rest } = logged;
    await this.scoped.updateOne(
      { accountId: d.accountId, _id: d._id },
      { $set: { ...rest, ...replaySet(now), version: logged.version + 1, outbox: [], holding: [] } },
      { upsert: true },
    );
    await this.log.deleteOne({ accountId: d.accountId, _id: d._id });
    return true;
  }

  /** Replays every delivery of a provider in the given states created since `since`. */
  async replayProvider(
    accountId: string,
    provider: string,
    since: Date,
    states: DeliveryDoc['state'][],
    now: Date,
  ): Promise<number> {
    const filter = { accountId, provider, state: { $in: states }, createdAt: { $gte: since } };
    const res = await this.scoped.updateMany(filter, { $set: replaySet(now), $inc: { version: 1 } });
    let replayed = res.modifiedCount;
    const logged = await this.log.find(filter, { outbox: 0 }).lean<DeliveryDoc[]>();
    for (const d of logged) if (await this.replayOne(d, now)) replayed++;
    return replayed;
  }
}

function replaySet(now: Date): Record<string, unknown> {
  return {
    state: 'pending',
    nextAttemptAt: now,
    attemptCount: 0,
    cycleStartedAt: now,
    heldBy: null,
    inFlight: null,
    deadAt: null,
    updatedAt: now,
  };
}

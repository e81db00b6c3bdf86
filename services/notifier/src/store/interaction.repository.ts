import { crossAccount, forAccounts, isDuplicateKeyError } from '@cc/store';
import type { Model, mongo } from 'mongoose';
import type { InteractionInfoDoc, NotifierModels } from './notifier.models';

/** Route and requestId of provider-bound interactions, kept from interaction.queued for the notification params. */
export class InteractionRepository {
  private readonly model: Model<InteractionInfoDoc>;

  constructor(models: NotifierModels) {
    this.model = models.interactions;
  }

  private get raw(): mongo.Collection<InteractionInfoDoc> {
    return crossAccount<InteractionInfoDoc>(this.model, 'retention: expiry by createdAt across accounts');
  }

  /** Keeps the facts of queued interactions in one unordered insert (idempotent: the first write wins). */
  async rememberMany(infos: Omit<InteractionInfoDoc, 'createdAt'>[], now: Date): Promise<void> {
    if (infos.length === 0) return;
    try {
      await forAccounts<InteractionInfoDoc>(this.model).insertMany(
        infos.map((info) => ({ ...info, createdAt: now })),
        { ordered: false },
      );
    } catch (err) {
      // Already known (a redelivered event): nothing to change.
      if (!isDuplicateKeyError(err)) throw err;
    }
  }

  /** What is known of an interaction, if anything. */
  async get(accountId: string, key: string): Promise<InteractionInfoDoc | null> {
    return this.model.findOne({ accountId, _id: key }).lean<InteractionInfoDoc>();
  }

  /** Deletes up to `limit` interaction facts kept since before `before` (bounded periodic expiry). */
  async expire(before: Date, limit: number): Promise<number> {
    const old = await this.raw
      .find({ createdAt: { $lt: before } }, { projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    if (old.length === 0) return 0;
    const res = await this.raw.bulkWrite(
      old.map((d) => ({ deleteOne: { filter: { _id: d._id } } })),
      { ordered: false },
    );
    return res.deletedCount;
  }
}

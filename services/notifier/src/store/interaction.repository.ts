import type { Model } from 'mongoose';
import type { InteractionInfoDoc, NotifierModels } from './notifier.models';

/** Route and requestId of provider-bound interactions, kept from interaction.queued for the notification params. */
export class InteractionRepository {
  private readonly model: Model<InteractionInfoDoc>;

  constructor(models: NotifierModels) {
    this.model = models.interactions;
  }

  /** Keeps the facts of a queued interaction (idempotent: the first write wins). */
  async remember(info: Omit<InteractionInfoDoc, 'createdAt'>, now: Date): Promise<void> {
    await this.model.updateOne(
      { accountId: info.accountId, _id: info._id },
      { $setOnInsert: { ...info, createdAt: now } },
      { upsert: true },
    );
  }

  /** What is known of an interaction, if anything. */
  async get(accountId: string, key: string): Promise<InteractionInfoDoc | null> {
    return this.model.findOne({ accountId, _id: key }).lean<InteractionInfoDoc>();
  }
}

import type { Model } from 'mongoose';
import type { SigningKeyDoc } from './signing-key.model';

/** Token signing keys (platform-wide, not tenant data). */
export class SigningKeyRepository {
  constructor(readonly model: Model<SigningKeyDoc>) {}

  /** Inserts a key. */
  async insert(doc: SigningKeyDoc): Promise<void> {
    await this.model.create(doc);
  }

  /** Keys still published at `now` (not retired), oldest activation first. */
  async published(now: Date): Promise<SigningKeyDoc[]> {
    const docs = await this.model.find({}).sort({ activatesAt: 1, _id: 1 }).lean<SigningKeyDoc[]>();
    return docs.filter((d) => !d.retiresAt || d.retiresAt > now);
  }

  /** Every key, for listing. */
  all(): Promise<SigningKeyDoc[]> {
    return this.model.find({}).sort({ activatesAt: 1, _id: 1 }).lean<SigningKeyDoc[]>();
  }

  /** Schedules the retirement of every current key but `exceptKid`. */
  async retireOthers(exceptKid: string, retiresAt: Date): Promise<void> {
    await this.model.updateMany({ _id: { $ne: exceptKid }, retiresAt: null }, { $set: { retiresAt } });
  }
}

import { crossAccount, isDuplicateKeyError } from '@cc/store';
import type { Model } from 'mongoose';
import { gatewayError, gatewayErrors } from '../domain/errors';
import { type Page, readPage } from './paging';
import type { V0CredentialDoc } from './v0-credential.model';

/** v0 credentials, scoped by account; only authentication looks one up by account key alone. */
export class V0CredentialRepository {
  constructor(readonly model: Model<V0CredentialDoc>) {}

  /** Inserts credentials; a taken account key is `GATEWAY.V0_CREDENTIAL_EXISTS`. */
  async insert(doc: V0CredentialDoc): Promise<void> {
    try {
      await this.model.create(doc);
    } catch (err) {
      if (isDuplicateKeyError(err)) {
        throw gatewayError(gatewayErrors.V0_CREDENTIAL_EXISTS, `The account key ${doc._id} is taken`);
      }
      throw err;
    }
  }

  /** The credentials with this account key in any account (deliberately unscoped: used only to authenticate). */
  async findForAuthentication(accountKey: string): Promise<V0CredentialDoc | undefined> {
    return (
      ((await crossAccount(this.model, 'authentication: the credentials tell the account').findOne({
        _id: accountKey,
      } as never)) as V0CredentialDoc | null) ?? undefined
    );
  }

  /** The account's v0 credentials (no token hashes), one page at a time. */
  async list(accountId: string, page: number, limit: number): Promise<Page<Omit<V0CredentialDoc, 'tokenHash'>>> {
    const p = await readPage<V0CredentialDoc>(this.model, { accountId }, page, limit);
    return { ...p, items: p.items.map(({ tokenHash: _h, ...c }) => c) };
  }

  /** Deletes credentials of the account; false if there were none. */
  async delete(accountId: string, accountKey: string): Promise<boolean> {
    return (await this.model.deleteOne({ accountId, _id: accountKey })).deletedCount === 1;
  }

  /** Creates or updates credentials in the account (seeding). */
  async upsert(doc: V0CredentialDoc): Promise<void> {
    const { _id, accountId, createdAt, ...rest } = doc;
    await this.model.updateOne({ accountId, _id }, { $set: rest, $setOnInsert: { createdAt } }, { upsert: true });
  }
}

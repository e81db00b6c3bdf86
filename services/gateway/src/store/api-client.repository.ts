import { crossAccount, isDuplicateKeyError } from '@cc/store';
import type { Model } from 'mongoose';
import { gatewayError, gatewayErrors } from '../domain/errors';
import type { ApiClientDoc } from './api-client.model';
import { type Page, readPage } from './paging';

const hidden = { secretHash: 0 } as const;

/** API clients, scoped by account; only authentication looks a client up by id alone. */
export class ApiClientRepository {
  constructor(readonly model: Model<ApiClientDoc>) {}

  /** Inserts a client; a taken client id is `GATEWAY.CLIENT_EXISTS`. */
  async insert(doc: ApiClientDoc): Promise<void> {
    try {
      await this.model.create(doc);
    } catch (err) {
      if (isDuplicateKeyError(err))
        throw gatewayError(gatewayErrors.CLIENT_EXISTS, `The client id ${doc._id} is taken`);
      throw err;
    }
  }

  /**
   * The client with this id in any account, with its secret hash. Deliberately unscoped (through the driver, past
   * the tenancy guard): authentication is what tells us the account. Nothing else may use it.
   */
  async findForAuthentication(clientId: string): Promise<ApiClientDoc | undefined> {
    return (
      ((await crossAccount(this.model, 'authentication: the client tells the account').findOne({
        _id: clientId,
      } as never)) as ApiClientDoc | null) ?? undefined
    );
  }

  /** A client of the account (no secret hash), or undefined. */
  async get(accountId: string, clientId: string): Promise<Omit<ApiClientDoc, 'secretHash'> | undefined> {
    return (await this.model.findOne({ accountId, _id: clientId }, hidden).lean<ApiClientDoc>()) ?? undefined;
  }

  /** The account's clients (no secret hashes), one page at a time. */
  async list(accountId: string, page: number, limit: number): Promise<Page<Omit<ApiClientDoc, 'secretHash'>>> {
    const p = await readPage<ApiClientDoc>(this.model, { accountId }, page, limit);
    return { ...p, items: p.items.map(({ secretHash: _h, ...c }) => c) };
  }

  /** Deletes a client of the account; false if there was none. */
  async delete(accountId: string, clientId: string): Promise<boolean> {
    return (await this.model.deleteOne({ accountId, _id: clientId })).deletedCount === 1;
  }

  /** Creates or updates a client in the account (seeding): name, scopes, flag and hash as given. */
  async upsert(doc: ApiClientDoc): Promise<void> {
    const { _id, accountId, createdAt, ...rest } = doc;
    await this.model.updateOne({ accountId, _id }, { $set: rest, $setOnInsert: { createdAt } }, { upsert: true });
  }
}

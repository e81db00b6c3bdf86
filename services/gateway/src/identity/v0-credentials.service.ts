import { randomBytes } from 'node:crypto';
import { gatewayError, gatewayErrors } from '../domain/errors';
import { burnVerification, generateSecret, hashSecret, verifySecret } from '../domain/secret-hash';
import type { Page } from '../store/paging';
import type { V0CredentialDoc } from '../store/v0-credential.model';
import type { V0CredentialRepository } from '../store/v0-credential.repository';

/** v0 credentials as the admin API shows them (libs/contracts `v0CredentialView`); the token only at creation. */
export interface V0CredentialView {
  accountKey: string;
  createdAt: string;
  apiToken?: string;
}

const accountKeyRe = /^[A-Za-z0-9_-]{1,64}$/;

/** v0 credentials (account key + API token): the token is returned once and stored as a scrypt hash. */
export class V0CredentialsService {
  constructor(private readonly repo: V0CredentialRepository) {}

  /** Creates credentials with a fresh (or the given) account key and a fresh API token. */
  async create(p: { accountId: string; accountKey?: string }): Promise<V0CredentialView> {
    const accountKey = p.accountKey ?? `k${randomBytes(10).toString('hex')}`;
    if (!accountKeyRe.test(accountKey)) {
      throw gatewayError('REQUEST.VALIDATION', 'The account key must be 1 to 64 letters, digits, _ or -', [
        { pointer: '/accountKey', message: 'accountKey must match ^[A-Za-z0-9_-]{1,64}$' },
      ]);
    }
    const apiToken = generateSecret();
    const doc: V0CredentialDoc = {
      _id: accountKey,
      accountId: p.accountId,
      tokenHash: await hashSecret(apiToken),
      createdAt: new Date(),
    };
    await this.repo.insert(doc);
    return { accountKey, createdAt: doc.createdAt.toISOString(), apiToken };
  }

  /** One page of the account's v0 credentials. */
  async list(accountId: string, page: number, limit: number): Promise<Page<V0CredentialView>> {
    const p = await this.repo.list(accountId, page, limit);
    return {
      ...p,
      items: p.items.map((c) => ({ accountKey: c._id, createdAt: new Date(c.createdAt).toISOString() })),
    };
  }

  /** Deletes credentials of the account (v0 tokens already issued stay valid until they expire). */
  async delete(accountId: string, accountKey: string): Promise<void> {
    if (!(await this.repo.delete(accountId, accountKey))) {
      throw gatewayError(gatewayErrors.V0_CREDENTIAL_NOT_FOUND, `No v0 credentials ${accountKey} in this account`);
    }
  }

  /** The credentials if the API token matches; undefined otherwise, in the same time whether or not they exist. */
  async authenticate(accountKey: string, apiToken: string): Promise<V0CredentialDoc | undefined> {
    const doc = await this.repo.findForAuthentication(accountKey);
    if (!doc) return void (await burnVerification(apiToken));
    return (await verifySecret(apiToken, doc.tokenHash)) ? doc : undefined;
  }

  /** Creates or updates credentials with a given key and token (the demo seed). */
  async ensure(p: { accountId: string; accountKey: string; apiToken: string }): Promise<void> {
    const existing = await this.repo.findForAuthentication(p.accountKey);
    if (existing && existing.accountId !== p.accountId) {
      throw gatewayError(
        gatewayErrors.V0_CREDENTIAL_EXISTS,
        `The account key ${p.accountKey} belongs to another account`,
      );
    }
    const keep = existing && (await verifySecret(p.apiToken, existing.tokenHash));
    await this.repo.upsert({
      _id: p.accountKey,
      accountId: p.accountId,
      tokenHash: keep ? existing.tokenHash : await hashSecret(p.apiToken),
      createdAt: new Date(),
    });
  }
}

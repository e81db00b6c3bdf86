import { randomBytes } from 'node:crypto';
import { gatewayError, gatewayErrors } from '../domain/errors';
import { burnVerification, generateSecret, hashSecret, verifySecret } from '../domain/secret-hash';
import type { ApiClientDoc } from '../store/api-client.model';
import type { ApiClientRepository } from '../store/api-client.repository';
import type { Page } from '../store/paging';

/** An API client as the admin API shows it (libs/contracts `apiClientView`); the secret only at creation. */
export interface ApiClientView {
  clientId: string;
  name: string;
  scopes: string[];
  createdAt: string;
  clientSecret?: string;
  platformAdmin?: boolean;
}

/** The view of a stored client (never its hash). */
export function clientView(doc: Omit<ApiClientDoc, 'secretHash'>): ApiClientView {
  return {
    clientId: doc._id,
    name: doc.name,
    scopes: [...doc.scopes],
    createdAt: new Date(doc.createdAt).toISOString(),
    ...(doc.platformAdmin ? { platformAdmin: true } : {}),
  };
}

/** API clients: creation returns the secret once; only its scrypt hash is stored. */
export class ClientsService {
  constructor(private readonly repo: ApiClientRepository) {}

  /** Creates a client with a fresh id and secret (the only time the secret is visible). */
  async create(p: { accountId: string; name: string; scopes: string[]; platformAdmin?: boolean }) {
    const clientId = `cli_${randomBytes(12).toString('hex')}`;
    const secret = generateSecret();
    const doc: ApiClientDoc = {
      _id: clientId,
      accountId: p.accountId,
      name: p.name,
      scopes: [...new Set(p.scopes)],
      secretHash: await hashSecret(secret),
      platformAdmin: Boolean(p.platformAdmin),
      createdAt: new Date(),
    };
    await this.repo.insert(doc);
    return { ...clientView(doc), clientSecret: secret };
  }

  /** A client of the account, or `GATEWAY.CLIENT_NOT_FOUND`. */
  async get(accountId: string, clientId: string): Promise<Omit<ApiClientDoc, 'secretHash'>> {
    const doc = await this.repo.get(accountId, clientId);
    if (!doc) throw gatewayError(gatewayErrors.CLIENT_NOT_FOUND, `No client ${clientId} in this account`);
    return doc;
  }

  /** One page of the account's clients. */
  list(accountId: string, page: number, limit: number): Promise<Page<Omit<ApiClientDoc, 'secretHash'>>> {
    return this.repo.list(accountId, page, limit);
  }

  /** Deletes a client of the account (tokens already issued stay valid until they expire). */
  async delete(accountId: string, clientId: string): Promise<void> {
    if (!(await this.repo.delete(accountId, clientId))) {
      throw gatewayError(gatewayErrors.CLIENT_NOT_FOUND, `No client ${clientId} in this account`);
    }
  }

  /** The client if the secret matches its hash; undefined otherwise (in the same time whether or not it exists). */
  async authenticate(clientId: string, secret: string): Promise<ApiClientDoc | undefined> {
    const doc = await this.repo.findForAuthentication(clientId);
    if (!doc) return void (await burnVerification(secret));
    return (await verifySecret(secret, doc.secretHash)) ? doc : undefined;
  }

  /** Creates or updates a client with a given id and secret (the demo seed); keeps the hash if it still matches. */
  async ensure(p: {
    accountId: string;
    clientId: string;
    secret: string;
    name: string;
    scopes: string[];
    platformAdmin: boolean;
  }): Promise<void> {
    const existing = await this.repo.findForAuthentication(p.clientId);
    if (existing && existing.accountId !== p.accountId) {
      throw gatewayError(gatewayErrors.CLIENT_EXISTS, `The client id ${p.clientId} belongs to another account`);
    }
    const keep = existing && (await verifySecret(p.secret, existing.secretHash));
    await this.repo.upsert({
      _id: p.clientId,
      accountId: p.accountId,
      name: p.name,
      scopes: p.scopes,
      platformAdmin: p.platformAdmin,
      secretHash: keep ? existing.secretHash : await hashSecret(p.secret),
      createdAt: new Date(),
    });
  }
}

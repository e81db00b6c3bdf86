import type { Connection, Model } from 'mongoose';
import { accountModel } from './account.model';
import { AccountRepository } from './account.repository';
import { apiClientModel } from './api-client.model';
import { ApiClientRepository } from './api-client.repository';
import { signingKeyModel } from './signing-key.model';
import { SigningKeyRepository } from './signing-key.repository';
import { v0CredentialModel } from './v0-credential.model';
import { V0CredentialRepository } from './v0-credential.repository';

/** The gateway's repositories on one connection (used by the service and the CLI alike). */
export interface GatewayStore {
  accounts: AccountRepository;
  clients: ApiClientRepository;
  v0: V0CredentialRepository;
  signingKeys: SigningKeyRepository;
  // biome-ignore lint/suspicious/noExplicitAny: models of different documents
  models: Model<any>[];
}

/** Binds the gateway's models to its database connection. */
export function openGatewayStore(conn: Connection): GatewayStore {
  const accounts = accountModel(conn);
  const clients = apiClientModel(conn);
  const v0 = v0CredentialModel(conn);
  const keys = signingKeyModel(conn);
  return {
    accounts: new AccountRepository(accounts),
    clients: new ApiClientRepository(clients),
    v0: new V0CredentialRepository(v0),
    signingKeys: new SigningKeyRepository(keys),
    models: [accounts, clients, v0, keys],
  };
}

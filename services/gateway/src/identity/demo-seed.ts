import { scopes } from '@cc/contracts';
import type { Logger } from '@cc/kit';
import type { AccountsService } from './accounts.service';
import type { ClientsService } from './clients.service';
import type { V0CredentialsService } from './v0-credentials.service';

/** The demo account's id. */
export const demoAccountId = 'demo';

/**
 * Seeds (idempotently) the demo account, a client holding every scope and platform administration, and demo v0
 * credentials, from the CC_DEMO_* settings. A changed secret in the settings replaces the stored hash.
 */
export async function seedDemo(
  deps: { accounts: AccountsService; clients: ClientsService; v0: V0CredentialsService; logger: Logger },
  p: { clientId: string; clientSecret: string; v0AccountKey: string; v0ApiToken: string },
): Promise<void> {
  const created = await deps.accounts.ensure({ accountId: demoAccountId, name: 'Demo account' });
  await deps.clients.ensure({
    accountId: demoAccountId,
    clientId: p.clientId,
    secret: p.clientSecret,
    name: 'Demo client (every scope)',
    scopes: Object.keys(scopes),
    platformAdmin: true,
  });
  await deps.v0.ensure({ accountId: demoAccountId, accountKey: p.v0AccountKey, apiToken: p.v0ApiToken });
  deps.logger.info(
    { accountId: demoAccountId, clientId: p.clientId, v0AccountKey: p.v0AccountKey, accountCreated: created },
    'demo account seeded',
  );
}

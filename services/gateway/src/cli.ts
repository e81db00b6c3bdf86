import { scopes } from '@cc/contracts';
import { AppError, createLogger, createSecretBox } from '@cc/kit';
import { connectStore, ensureIndexes } from '@cc/store';
import { KeyRing } from './auth/key-ring';
import { parseCliArgs, UsageError } from './cli-args';
import { loadCliConfig } from './config';
import type { FeatureFlags } from './domain/feature-flags';
import { AccountsService, accountView } from './identity/accounts.service';
import { ClientsService, clientView } from './identity/clients.service';
import { seedDemo } from './identity/demo-seed';
import { V0CredentialsService } from './identity/v0-credentials.service';
import { openGatewayStore } from './store/gateway-store';

const usage = `Usage: node --import tsx services/gateway/src/cli.ts <command>

  accounts list
  accounts create <accountId> <name>
  accounts show <accountId>
  accounts rate-limit <accountId> <rps> <burst>     (or: accounts rate-limit <accountId> default)
  flags show <accountId>
  flags set <accountId> <flag>=<true|false> ...      (agentSummaries, conversationAnalysis, v0Statistics)
  clients list <accountId>
  clients create <accountId> <name> <scope[,scope...]> [--platform-admin]
  clients delete <accountId> <clientId>
  v0 list <accountId>
  v0 create <accountId> [accountKey]
  v0 delete <accountId> <accountKey>
  keys list
  keys rotate
  demo seed

Options may stand anywhere; \`--\` ends them (for a name that starts with -).
Talks to the gateway's store (MONGO_URL, MONGO_DB, CC_ENCRYPTION_KEYS). Secrets are printed once, at creation.
Feature-flag changes are staged in the account's outbox; the running gateway publishes them on cc.account.v1
(within its outbox sweep, OUTBOX_SWEEP_MS, 30 s by default).`;

function out(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function arg(args: string[], i: number, name: string): string {
  const v = args[i];
  if (!v) throw new UsageError(`missing <${name}>`);
  return v;
}

function parseFlag(text: string): [keyof FeatureFlags, boolean] {
  const [name, value] = text.split('=');
  const known = ['agentSummaries', 'conversationAnalysis', 'v0Statistics'];
  if (!name || !known.includes(name) || (value !== 'true' && value !== 'false')) {
    throw new UsageError(`expected <flag>=<true|false> with flag one of ${known.join(', ')}; got ${text}`);
  }
  return [name as keyof FeatureFlags, value === 'true'];
}

/** Runs one CLI command against the gateway's store; returns the exit code. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed: ReturnType<typeof parseCliArgs>;
  try {
    parsed = parseCliArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`error: ${err.message}\n\n${usage}\n`);
    return 64;
  }
  const { command, args, platformAdmin } = parsed;
  if (command === 'help') {
    process.stdout.write(`${usage}\n`);
    return argv.length ? 0 : 64;
  }
  const config = loadCliConfig(env);
  const logger = createLogger('gateway-cli', config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, process.stderr);
  const conn = await connectStore({
    url: config.MONGO_URL,
    dbName: config.MONGO_DB,
    logger,
    connectDeadlineMs: 10_000,
  });
  try {
    const store = openGatewayStore(conn);
    await ensureIndexes(store.models);
    const accounts = new AccountsService(store.accounts);
    const clients = new ClientsService(store.clients);
    const v0 = new V0CredentialsService(store.v0);
    const keyRing = () =>
      new KeyRing(store.signingKeys, createSecretBox(config.CC_ENCRYPTION_KEYS), {
        activationDelayMs: config.SIGNING_KEY_ACTIVATION_DELAY_MS,
        logger,
      });
    const page = async <T>(list: (p: number) => Promise<{ items: T[]; totalCount: number }>) => {
      const all: T[] = [];
      for (let p = 1; ; p++) {
        const res = await list(p);
        all.push(...res.items);
        if (all.length >= res.totalCount || !res.items.length) return all;
      }
    };

    switch (command) {
      case 'accounts list':
        out(await page((p) => accounts.list(p, 500)).then((items) => items.map((a) => accountView(a, true))));
        break;
      case 'accounts create':
        out(await accounts.create({ accountId: arg(args, 0, 'accountId'), name: arg(args, 1, 'name') }));
        break;
      case 'accounts show':
        out(accountView(await accounts.get(arg(args, 0, 'accountId')), true));
        break;
      case 'accounts rate-limit': {
        const id = arg(args, 0, 'accountId');
        if (args[1] === 'default') await accounts.setRateLimit(id, null);
        else
          await accounts.setRateLimit(id, { rps: Number(arg(args, 1, 'rps')), burst: Number(arg(args, 2, 'burst')) });
        out(accountView(await accounts.get(id), true));
        break;
      }
      case 'flags show':
        out(accountView(await accounts.get(arg(args, 0, 'accountId'))).featureFlags);
        break;
      case 'flags set': {
        const id = arg(args, 0, 'accountId');
        if (args.length < 2) throw new UsageError('give at least one <flag>=<true|false>');
        out(await accounts.patchFlags(id, Object.fromEntries(args.slice(1).map(parseFlag))));
        break;
      }
      case 'clients list':
        out((await page((p) => clients.list(arg(args, 0, 'accountId'), p, 500))).map(clientView));
        break;
      case 'clients create': {
        const accountId = arg(args, 0, 'accountId');
        await accounts.get(accountId);
        const wanted = arg(args, 2, 'scopes').split(',').filter(Boolean);
        const unknown = wanted.filter((s) => !Object.hasOwn(scopes, s));
        if (unknown.length)
          throw new UsageError(`unknown scope(s) ${unknown.join(', ')}; known: ${Object.keys(scopes).join(', ')}`);
        out(
          await clients.create({
            accountId,
            name: arg(args, 1, 'name'),
            scopes: wanted,
            platformAdmin,
          }),
        );
        break;
      }
      case 'clients delete':
        await clients.delete(arg(args, 0, 'accountId'), arg(args, 1, 'clientId'));
        out({ deleted: args[1] });
        break;
      case 'v0 list':
        out(await page((p) => v0.list(arg(args, 0, 'accountId'), p, 500)));
        break;
      case 'v0 create': {
        const accountId = arg(args, 0, 'accountId');
        await accounts.get(accountId);
        out(await v0.create({ accountId, ...(args[1] ? { accountKey: args[1] } : {}) }));
        break;
      }
      case 'v0 delete':
        await v0.delete(arg(args, 0, 'accountId'), arg(args, 1, 'accountKey'));
        out({ deleted: args[1] });
        break;
      case 'keys list':
        out(await keyRing().list());
        break;
      case 'keys rotate': {
        const ring = keyRing();
        await ring.init();
        out(await ring.rotate());
        break;
      }
      case 'demo seed':
        await seedDemo(
          { accounts, clients, v0, logger },
          {
            clientId: config.CC_DEMO_CLIENT_ID,
            clientSecret: config.CC_DEMO_CLIENT_SECRET,
            v0AccountKey: config.CC_DEMO_V0_ACCOUNT_KEY,
            v0ApiToken: config.CC_DEMO_V0_API_TOKEN,
          },
        );
        out({ seeded: true, accountId: 'demo', clientId: config.CC_DEMO_CLIENT_ID });
        break;
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${usage}\n`);
      return 64;
    }
    if (err instanceof AppError || err instanceof RangeError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await conn.close();
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`error: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}

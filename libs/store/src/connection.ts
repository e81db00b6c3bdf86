import { type Logger, type Metrics, retry, retryPolicies } from '@cc/kit';
import mongoose, { type Connection, type Model } from 'mongoose';

/** Options for {@link connectStore}. */
export interface StoreOptions {
  /** Server address without database, e.g. `mongodb://127.0.0.1:27017`. */
  url: string;
  /** The service's own database, `cc_<service>` (tests use a fresh name per file). */
  dbName: string;
  logger: Logger;
  metrics?: Metrics;
  /** Give up after this long without a first connection (default: keep trying for 2 minutes). */
  connectDeadlineMs?: number;
  /** Driver pool size (default 20). */
  maxPoolSize?: number;
}

/**
 * Connects to the service's database, retrying with backoff until the deadline; mongoose index
 * building is off so that {@link ensureIndexes} creates them once, at start, where failures are seen.
 *
 * On FerretDB, concurrent conditional updates are atomic only with the local stack's patched build
 * (deploy/local/patches/ferretdb-1.24-atomic-writes.patch); stock FerretDB 1.24 loses concurrent updates
 * of one document (40 concurrent `$inc` → 6). The store's atomicity tests run against whichever server
 * the suite uses.
 */
export async function connectStore(opts: StoreOptions): Promise<Connection> {
  const conn = await connectWithRetry(opts, opts.maxPoolSize ?? 20);
  const info = await conn.db?.admin().command({ buildInfo: 1 });
  if (info?.ferretdbVersion) opts.logger.info({ ferretdbVersion: info.ferretdbVersion }, 'store is FerretDB');
  return conn;
}

async function connectWithRetry(opts: StoreOptions, maxPoolSize: number): Promise<Connection> {
  const log = opts.logger.child({ component: 'store', db: opts.dbName });
  return retry(
    async (attempt) => {
      const conn = mongoose.createConnection(opts.url, {
        dbName: opts.dbName,
        autoIndex: false,
        autoCreate: false,
        serverSelectionTimeoutMS: 5000,
        // The driver's server monitor pings every 10 s by default: the one store command an idle service would
        // send. Failures still surface on the next operation and in /readyz, which pings itself.
        heartbeatFrequencyMS: 30_000,
        maxPoolSize,
      });
      try {
        await conn.asPromise();
      } catch (err) {
        await conn.close().catch(() => undefined);
        throw err;
      }
      log.info({ attempt, maxPoolSize }, 'store connected');
      if (opts.metrics) trackPool(conn, opts.metrics);
      return conn;
    },
    {
      policy: { ...retryPolicies.connect, maxTimeMs: opts.connectDeadlineMs ?? retryPolicies.connect.maxTimeMs },
      what: 'store connect',
      logger: log,
    },
  );
}

/** Creates the declared indexes of every model (unique and compound only: the portable subset). */
// biome-ignore lint/suspicious/noExplicitAny: any model of the service
export async function ensureIndexes(models: Model<any>[]): Promise<void> {
  for (const model of models) {
    await model.createCollection().catch((err: { codeName?: string }) => {
      if (err.codeName !== 'NamespaceExists') throw err;
    });
    await model.createIndexes();
  }
}

/** A readiness check: the server answers a ping within the driver's timeout. */
export function storeReadiness(conn: Connection): () => Promise<void> {
  return async () => {
    if (!conn.db) throw new Error('not connected');
    await conn.db.admin().command({ ping: 1 }, { timeoutMS: 1500 } as Record<string, unknown>);
  };
}

function trackPool(conn: Connection, metrics: Metrics): void {
  const client = conn.getClient();
  let inUse = 0;
  let open = 0;
  const set = () => {
    metrics.storePool.set({ state: 'in_use' }, inUse);
    metrics.storePool.set({ state: 'open' }, open);
  };
  client.on('connectionCreated', () => {
    open++;
    set();
  });
  client.on('connectionClosed', () => {
    open = Math.max(0, open - 1);
    set();
  });
  client.on('connectionCheckedOut', () => {
    inUse++;
    set();
  });
  client.on('connectionCheckedIn', () => {
    inUse = Math.max(0, inUse - 1);
    set();
  });
}

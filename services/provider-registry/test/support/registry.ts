import { randomBytes } from 'node:crypto';
import type { CloudEvent } from '@cc/bus';
import type { Runtime } from '@cc/runtime';
import { CapturedLogs, freshName, type GatewayProcess, planGateway, testInfra } from '@cc/testing';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import type { mongo } from 'mongoose';
import { loadServiceConfig } from '../../src/config';
import { startService } from '../../src/service';
import { type Client, client } from './client';

/** The encryption keys the registry under test (and, in production, the notifier) holds. */
export const testKeys = `t1:${randomBytes(32).toString('base64')}`;

/**
 * A provider registry started in-process on the real broker and store, behind a real gateway process:
 * `baseUrl` is the gateway (tokens are the gateway's, issued to clients made through its admin API), so
 * every request takes the public path; `directUrl` reaches the registry itself.
 */
export interface RegistryUnderTest {
  runtime: Runtime;
  baseUrl: string;
  directUrl: string;
  gateway: GatewayProcess;
  logs: CapturedLogs;
  dbName: string;
  /** A client holding a token of this account and scope. */
  as(accountId: string, scope?: string): Promise<Client>;
  /** The raw providers collection (driver, no mongoose), to see exactly what is stored. */
  rawProviders(): mongo.Collection;
  stop(): Promise<void>;
}

/** Starts the registry with a fresh database; `env` adds or overrides settings. */
export async function startRegistry(env: Record<string, string> = {}): Promise<RegistryUnderTest> {
  const infra = await testInfra();
  const planned = await planGateway();
  const logs = new CapturedLogs();
  const dbName = freshName('cc_provider_registry');
  const config = {
    ...loadServiceConfig({
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: dbName,
      LOG_LEVEL: 'info',
      CC_ENCRYPTION_KEYS: testKeys,
      SHUTDOWN_DEADLINE_MS: '20000',
      AUTH_JWKS_URL: planned.jwksUrl,
      ...env,
    }),
    PORT: 0, // envalid's port() refuses 0; any free port
  };
  const runtime = await startService(config, { logDestination: logs, exitOnShutdown: false });
  const directUrl = runtime.url();
  const gateway = await planned.start({ PROVIDER_REGISTRY: directUrl }).catch(async (err) => {
    await runtime.stop();
    throw err;
  });
  return {
    runtime,
    baseUrl: gateway.url,
    directUrl,
    gateway,
    logs,
    dbName,
    as: async (accountId, scope = 'interactions:write') => client(gateway.url, await gateway.token(accountId, scope)),
    rawProviders: () => runtime.conn.getClient().db(dbName).collection('providers'),
    stop: async () => {
      await runtime.conn
        .getClient()
        .db(dbName)
        .dropDatabase()
        .catch(() => undefined);
      await gateway.stop();
      await runtime.stop();
    },
  };
}

/** A raw Kafka message of cc.provider.v1 as a subscribing team would see it. */
export interface RawMessage {
  key: string;
  value: string;
  event: CloudEvent;
}

/**
 * Reads cc.provider.v1 for real (its own consumer group, from the beginning) and keeps the messages of the
 * given accounts; other test runs' events on the shared topic are ignored.
 */
export async function readProviderTopic(accounts: string[]) {
  const infra = await testInfra();
  const kafka = new Kafka({
    clientId: 'provider-registry-test',
    brokers: infra.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });
  const consumer: Consumer = kafka.consumer({ groupId: freshName('provider-registry-test') });
  const messages: RawMessage[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic: 'cc.provider.v1', fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const value = message.value?.toString('utf8') ?? '';
      let event: CloudEvent;
      try {
        event = JSON.parse(value) as CloudEvent;
      } catch {
        return;
      }
      if (accounts.includes(event.accountid)) messages.push({ key: message.key?.toString() ?? '', value, event });
    },
  });
  return {
    messages,
    /** Events of one account and provider, in topic order. */
    of: (accountId: string, provider: string) =>
      messages.filter((m) => m.event.accountid === accountId && m.event.subject === provider),
    stop: () => consumer.disconnect(),
  };
}

import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { testInfra } from '@cc/testing';
import { e2eServices, root, type ServiceName, startService, stopSuite, suiteEnv, waitReady } from './suite';

/** Starts the whole suite once for the e2e run, against the real Kafka and store. */
export default async function globalSetup(): Promise<void> {
  await stopSuite();
  rmSync(resolve(root, '.test-results/e2e-suite.json'), { force: true });
  const infra = await testInfra();
  const env = suiteEnv({ KAFKA_BROKERS: infra.kafkaBrokers.join(','), MONGO_URL: infra.mongoUrl, ...devKeys() });
  // Drop the previous e2e run's databases so every run starts from the same state.
  const mongoose = await import('mongoose');
  const conn = await mongoose.createConnection(infra.mongoUrl).asPromise();
  for (const name of Object.keys(e2eServices)) {
    await conn
      .useDb(`cc_e2e_${name.replace(/-/g, '_')}`)
      .dropDatabase()
      .catch(() => undefined);
  }
  await conn.close();
  process.stdout.write('[e2e] starting the suite\n');
  for (const name of Object.keys(e2eServices) as ServiceName[]) startService(name, env);
  await waitReady();
  process.stdout.write('[e2e] all services ready\n');
}

function devKeys(): Record<string, string> {
  // Fixed test-only keys: the e2e suite must be able to restart services and read what they wrote.
  return {
    CC_ENCRYPTION_KEYS: process.env.CC_ENCRYPTION_KEYS ?? 'e2e:ZTJlLXRlc3Qta2V5LW5vdC1mb3ItcHJvZHVjdGlvbiE=',
    ENDPOINT_ALLOWLIST: '127.0.0.1,localhost',
  };
}

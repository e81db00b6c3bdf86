import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { selfSignedCertificate, skipTopicHistory, testInfra } from '@cc/testing';
import { onLocalStack, stackScript } from './local-stack.control';
import {
  e2eConsumerGroups,
  e2eServices,
  root,
  type ServiceName,
  startService,
  stopSuite,
  suiteEnv,
  tlsCertFile,
  tlsDir,
  tlsKeyFile,
  waitReady,
} from './suite';

/** Starts the whole suite once for the e2e run, against the real Kafka and store. */
export default async function globalSetup(): Promise<void> {
  await stopSuite();
  rmSync(resolve(root, '.test-results/e2e-suite.json'), { force: true });
  rmSync(resolve(root, '.test-results/e2e-logs'), { recursive: true, force: true });
  makeCertificate();
  // The fault scenarios stop and start the local stack's broker and store; should an interrupted run have
  // left one stopped, start it again (idempotent: a running stack is only waited for).
  if (onLocalStack()) await stackScript('stack.sh', 'start');
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
  await skipHistory(infra.kafkaBrokers);
  // The gateway serves the operator console the browser scenario drives (built only when its sources changed).
  execFileSync(process.execPath, [resolve(root, 'scripts/build-console.cjs')], { stdio: 'inherit' });
  process.stdout.write('[e2e] starting the suite\n');
  for (const name of Object.keys(e2eServices) as ServiceName[]) startService(name, env);
  await waitReady();
  process.stdout.write('[e2e] all services ready\n');
}

/**
 * Commits the e2e consumer groups' offsets at the end of every suite topic: the scenarios use fresh
 * accounts, and the history other tiers left on the shared broker (thousands of provider events from
 * the integration tests) would otherwise be replayed first, delaying the scenarios' own events by
 * minutes on the local store.
 */
async function skipHistory(brokers: string[]): Promise<void> {
  const topics = await skipTopicHistory(brokers, e2eConsumerGroups, 'e2e-setup');
  process.stdout.write(`[e2e] consumer groups start at the end of ${topics} topics\n`);
}

/**
 * A self-signed P-256 certificate for localhost and 127.0.0.1, for the HTTPS servers the scenarios run
 * as provider endpoints; the notifier trusts it (NOTIFIER_EXTRA_CA_FILE).
 */
function makeCertificate(): void {
  rmSync(tlsDir, { recursive: true, force: true });
  const cert = selfSignedCertificate(tlsDir);
  if (cert.certPath !== tlsCertFile || cert.keyPath !== tlsKeyFile) throw new Error('unexpected certificate paths');
}

function devKeys(): Record<string, string> {
  // Fixed test-only keys: the e2e suite must be able to restart services and read what they wrote.
  return {
    CC_ENCRYPTION_KEYS: process.env.CC_ENCRYPTION_KEYS ?? 'e2e:ZTJlLXRlc3Qta2V5LW5vdC1mb3ItcHJvZHVjdGlvbiE=',
    ENDPOINT_ALLOWLIST: '127.0.0.1,localhost',
  };
}

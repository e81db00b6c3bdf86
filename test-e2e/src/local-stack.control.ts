import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { root } from './suite';

/** The broker address of the local stack (deploy/local, `KAFKA_PORT`, default 9092). */
function localKafka(): string[] {
  const port = process.env.KAFKA_PORT ?? '9092';
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** The store address of the local stack (deploy/local, `MONGO_PORT`, default 27017). */
function localMongo(): string[] {
  const port = process.env.MONGO_PORT ?? '27017';
  return [`mongodb://127.0.0.1:${port}`, `mongodb://localhost:${port}`].flatMap((u) => [u, `${u}/`]);
}

/** Whether KAFKA_BROKERS and MONGO_URL both name the local stack (deploy/local) rather than servers of their own. */
export function onLocalStack(): boolean {
  return localKafka().includes(process.env.KAFKA_BROKERS ?? '') && localMongo().includes(process.env.MONGO_URL ?? '');
}

/**
 * Fails with a clear message unless the suite runs on the local stack's own Kafka (the fault scenario
 * stops and starts that broker with deploy/local/kafka.sh; another broker cannot be stopped from here).
 */
export function assertLocalKafka(): void {
  const brokers = process.env.KAFKA_BROKERS ?? '';
  if (!localKafka().includes(brokers)) {
    throw new Error(
      `The Kafka fault scenario stops and starts the local stack's broker (deploy/local/kafka.sh), but KAFKA_BROKERS=${brokers || '(unset)'} is not the local stack's ${localKafka()[0]}. Run the e2e tier on the local stack (./cc test without KAFKA_BROKERS, or KAFKA_BROKERS=${localKafka()[0]}).`,
    );
  }
}

/** Same as {@link assertLocalKafka} for the store (deploy/local/ferretdb.sh). */
export function assertLocalStore(): void {
  const url = process.env.MONGO_URL ?? '';
  if (!localMongo().includes(url)) {
    throw new Error(
      `The store fault scenario stops and starts the local stack's FerretDB (deploy/local/ferretdb.sh), but MONGO_URL=${url || '(unset)'} is not the local stack's ${localMongo()[0]}. Run the e2e tier on the local stack (./cc test without MONGO_URL, or MONGO_URL=${localMongo()[0]}).`,
    );
  }
}

/** Runs one deploy/local script asynchronously (the test's HTTPS endpoint keeps serving meanwhile). */
export function stackScript(script: 'kafka.sh' | 'ferretdb.sh' | 'stack.sh', command: string): Promise<string> {
  return new Promise((done, fail) => {
    execFile(
      'bash',
      [resolve(root, 'deploy/local', script), command],
      { cwd: root, env: process.env, timeout: 180_000, maxBuffer: 8 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) fail(new Error(`deploy/local/${script} ${command} failed: ${err.message}\n${stderr.slice(-2000)}`));
        else done(`${stdout}${stderr}`);
      },
    );
  });
}

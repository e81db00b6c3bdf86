import { eventSchemas } from '@cc/contracts';
import { startRuntime } from '@cc/runtime';
import { config } from './config';
import { producedTopics } from './events/topics';
import { mountRoutes } from './http/routes';

/** Composition root of the gateway service: config, connections, topics, HTTP, shutdown. */
async function main(): Promise<void> {
  const runtime = await startRuntime({ name: 'gateway', config, eventSchemas });
  await runtime.ensureTopics(producedTopics);
  await runtime.listen((app) => mountRoutes(app));
}

main().catch((err) => {
  process.stderr.write(
    `${JSON.stringify({ level: 'fatal', service: 'gateway', msg: 'failed to start', err: String(err?.stack ?? err) })}\n`,
  );
  process.exit(1);
});

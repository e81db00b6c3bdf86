import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { kafkaSecurity } from '@cc/bus';
import { baseConfigSpec, loadConfig } from '@cc/kit';
import { freeLoopbackPort } from '@cc/testing';
import { startGroupsAtEnd } from './support/kafka-groups';
import { rewriteForLocal } from './support/local-rewrite';
import { overlays, renderOverlay, root, workloadEnvs } from './support/manifests';
import { gatewayCli, ServiceProcess } from './support/service-process';
import { type SmokeClient, smoke } from './support/smoke';

// The rendered manifests configure a working suite, not only valid YAML: each overlay is rendered with the
// repo's kustomize, every Deployment's environment is taken from its ConfigMaps and Secrets (test values for
// the placeholders), each service is started locally with exactly that environment (addresses rewritten to
// the local stack and free ports, see rewriteForLocal), and a smoke runs through the gateway.

const kafkaBrokers = process.env.KAFKA_BROKERS;
const mongoUrl = process.env.MONGO_URL;
if (!kafkaBrokers || !mongoUrl) throw new Error('KAFKA_BROKERS and MONGO_URL must point at the local stack');

describe.each(overlays())('the %s overlay, rendered and started', (overlay) => {
  const suffix = `boot${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const logDir = resolve(root, '.test-results/deploy-boot', overlay);
  const running: ServiceProcess[] = [];
  let envs: { service: string; env: Record<string, string> }[] = [];

  beforeAll(async () => {
    const rendered = workloadEnvs(await renderOverlay(overlay));
    const ports: Record<string, number> = {};
    for (const w of rendered) ports[w.service] = await freeLoopbackPort();
    const testSecrets = {
      CC_ENCRYPTION_KEYS: `boot:${randomBytes(32).toString('base64')}`,
      CC_DEMO_CLIENT_SECRET: `boot-demo-${suffix}`,
      KAFKA_SASL_PASSWORD: `boot-kafka-${suffix}`,
    };
    // The Kafka TLS/SASL settings cannot reach the PLAINTEXT local broker, so they are checked for consistency
    // (mechanism with user and password, TLS files only with TLS) before the rewrite drops them.
    for (const w of rendered) {
      const settings = loadConfig(baseConfigSpec(w.service, 8080), w.env, (problems) => {
        throw new Error(`${w.service}: ${problems.join('; ')}`);
      });
      kafkaSecurity(settings, () => 'PEM');
    }
    envs = rendered.map((w) => ({
      service: w.service,
      env: rewriteForLocal(w.env, { service: w.service, ports, kafkaBrokers, mongoUrl, suffix, testSecrets }),
    }));
    await startGroupsAtEnd(
      kafkaBrokers,
      envs.flatMap((e) => (e.env.KAFKA_GROUP_ID ? [e.env.KAFKA_GROUP_ID] : [])),
    );
    for (const { service, env } of envs) running.push(ServiceProcess.start(service, env, logDir));
    await Promise.all(running.map((p) => p.waitFor('/readyz')));
  }, 240_000);

  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
  }, 60_000);

  it('renders every service of the suite', () => {
    expect(envs.map((e) => e.service).sort()).toEqual(
      ['analysis', 'gateway', 'notifier', 'provider-registry', 'routing', 'statistics', 'summaries'].sort(),
    );
  });

  it('serves token, Register, Invoke and a statistics query through the gateway', async () => {
    const gateway = envs.find((e) => e.service === 'gateway');
    const gatewayProcess = running.find((p) => p.name === 'gateway');
    if (!gateway || !gatewayProcess) throw new Error('no gateway Deployment rendered');
    // Bootstrapped as an operator would: the gateway's CLI with the gateway's own environment.
    const accountId = `boot-${suffix}`;
    await gatewayCli(gateway.env, ['accounts', 'create', accountId, 'Boot check']);
    const client = (await gatewayCli(gateway.env, [
      'clients',
      'create',
      accountId,
      'boot-smoke',
      'interactions:write,admin,stats',
    ])) as SmokeClient;
    const steps = await smoke(gatewayProcess.url, client, suffix).catch((err: Error) => {
      throw new Error(`${err.message}\n${running.map((p) => `--- ${p.name}:\n${p.tail(8)}`).join('\n')}`);
    });
    const status = (step: string) => steps.find((s) => s.step === step)?.status;
    expect(status('token (interactions:write)')).toBe(200);
    expect(status('Invoke')).toBe(202);
    expect(status('statistics query')).toBeLessThan(500);
  }, 300_000);
});

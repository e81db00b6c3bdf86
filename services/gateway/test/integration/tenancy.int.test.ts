import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { eventually, freshName, testInfra } from '@cc/testing';
import { demo, freePort, getToken, startGateway, type TestGateway, testEncryptionKeys } from './helpers';

const root = resolve(__dirname, '../../../..');

/** A real service started as its own process (services never import each other, so not in-process). */
interface ServiceProcess {
  name: string;
  url: string;
  child: ChildProcess;
  output: string[];
}

async function startServiceProcess(name: string, env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', `services/${name}/src/main.ts`], {
    cwd: root,
    env: { PATH: process.env.PATH, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  for (const s of [child.stdout, child.stderr]) s?.on('data', (c) => output.push(String(c)));
  const svc = { name, url: `http://127.0.0.1:${port}`, child, output };
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}: ${output.join('').slice(-2000)}`);
      return (await fetch(`${svc.url}/readyz`)).ok;
    },
    { timeoutMs: 90_000, intervalMs: 500, what: `${name} ready` },
  ).catch((err) => {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${output.join('').slice(-2000)}`);
  });
  return svc;
}

async function stopServiceProcess(svc?: ServiceProcess): Promise<void> {
  if (!svc || svc.child.exitCode !== null) return;
  const exited = new Promise((r) => svc.child.once('exit', r));
  svc.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    exited,
    new Promise((r) => {
      timer = setTimeout(r, 15_000);
    }),
  ]);
  clearTimeout(timer);
  if (svc.child.exitCode === null) svc.child.kill('SIGKILL');
}

// Acceptance: a token of account A can never read or change account B's data, through the real gateway and two real
// services (provider-registry and routing), each verifying the token again and scoping every query by its account.
describe('tenancy through the gateway and real services', () => {
  let gw: TestGateway;
  let registry: ServiceProcess | undefined;
  let routing: ServiceProcess | undefined;
  const tokens: Record<'A' | 'B', { write: string; admin: string }> = {
    A: { write: '', admin: '' },
    B: { write: '', admin: '' },
  };

  beforeAll(async () => {
    const infra = await testInfra();
    const gwPort = await freePort();
    const common = {
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      MONGO_URL: infra.mongoUrl,
      KAFKA_TOPIC_PARTITIONS: '1',
      LOG_LEVEL: 'warn',
      AUTH_JWKS_URL: `http://127.0.0.1:${gwPort}/.well-known/jwks.json`,
      CC_ENCRYPTION_KEYS: testEncryptionKeys(),
    };
    [registry, routing] = await Promise.all([
      startServiceProcess('provider-registry', { ...common, MONGO_DB: freshName('tenancy_pr') }),
      startServiceProcess('routing', { ...common, MONGO_DB: freshName('tenancy_rt') }),
    ]);
    gw = await startGateway({
      PORT: String(gwPort),
      UPSTREAM_PROVIDER_REGISTRY_URL: registry.url,
      UPSTREAM_ROUTING_URL: routing.url,
    });

    tokens.A.write = await getToken(gw.url, demo.clientId, demo.secret, 'interactions:write');
    tokens.A.admin = await getToken(gw.url, demo.clientId, demo.secret, 'admin');
    const created = await api('POST', '/admin/accounts', tokens.A.admin, {
      accountId: freshName('tb').replace(/_/g, '-'),
      name: 'B',
    });
    expect(created.status).toBe(201);
    const { adminClient } = (await created.json()) as { adminClient: { clientId: string; clientSecret: string } };
    tokens.B.admin = await getToken(gw.url, adminClient.clientId, adminClient.clientSecret, 'admin');
    const writer = (await (
      await api('POST', '/admin/clients', tokens.B.admin, { name: 'w', scopes: ['interactions:write'] })
    ).json()) as {
      clientId: string;
      clientSecret: string;
    };
    tokens.B.write = await getToken(gw.url, writer.clientId, writer.clientSecret, 'interactions:write');
  }, 180_000);

  afterAll(async () => {
    await gw?.stop();
    await Promise.all([stopServiceProcess(registry), stopServiceProcess(routing)]);
  });

  function api(method: string, path: string, token: string, body?: unknown) {
    return fetch(`${gw.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  it("provider-registry: B can neither read, list, change nor delete A's provider", async () => {
    const provider = 'TenancyProv';
    const reg = await api('POST', '/interactions/Register', tokens.A.write, {
      provider,
      agentactionspermitted: { release: 1 },
    });
    // Each service has a fresh database: A's provider is new (201; 200 would mean it replaced one).
    expect(reg.status).toBe(201);
    expect((await api('GET', `/admin/providers/${provider}`, tokens.A.admin)).status).toBe(200);

    expect((await api('GET', `/admin/providers/${provider}`, tokens.B.admin)).status).toBe(404);
    const listB = (await (await api('GET', '/admin/providers', tokens.B.admin)).json()) as {
      items: { provider: string }[];
    };
    expect(listB.items.map((p) => p.provider)).not.toContain(provider);
    expect((await api('DELETE', `/admin/providers/${provider}`, tokens.B.admin)).status).toBe(404);

    // B registering the same name creates B's own provider; A's is untouched.
    const regB = await api('POST', '/interactions/Register', tokens.B.write, {
      provider,
      agentactionspermitted: { release: 1, hold: 1 },
    });
    // 201, not 200: B created its own provider rather than replacing A's.
    expect(regB.status).toBe(201);
    const a = (await (await api('GET', `/admin/providers/${provider}`, tokens.A.admin)).json()) as {
      permissions: Record<string, boolean>;
    };
    expect(a.permissions.hold).toBe(false);
  });

  it("routing: B can neither list, change nor delete A's skill", async () => {
    const skill = 'TenancySkill';
    const put = await api('PUT', `/admin/skills/${skill}`, tokens.A.admin, { name: skill, description: 'A only' });
    expect(put.status).toBe(201);

    const listB = (await (await api('GET', '/admin/skills', tokens.B.admin)).json()) as { items: { name: string }[] };
    expect(listB.items.map((s) => s.name)).not.toContain(skill);
    expect((await api('DELETE', `/admin/skills/${skill}`, tokens.B.admin)).status).toBe(404);
    const putB = await api('PUT', `/admin/skills/${skill}`, tokens.B.admin, { name: skill, description: 'B' });
    expect(putB.status).toBe(201);

    const listA = (await (await api('GET', '/admin/skills', tokens.A.admin)).json()) as {
      items: { name: string; description?: string }[];
    };
    expect(listA.items.filter((s) => s.name === skill)).toEqual([expect.objectContaining({ description: 'A only' })]);
  });
});

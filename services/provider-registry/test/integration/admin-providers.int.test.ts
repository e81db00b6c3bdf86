import { listOf, providerView, signingSecretRotation } from '@cc/contracts';
import { createSecretBox } from '@cc/kit';
import { eventually, freshName } from '@cc/testing';
import { openSealed, type SealedPayload, sealedEventAad } from '../../src/events/provider.events';
import { type Client, client, providerPath } from '../support/client';
import { expectContract } from '../support/contract';
import { type RegistryUnderTest, readProviderTopic, startRegistry, testKeys } from '../support/registry';

const graceSeconds = 3600;
let registry: RegistryUnderTest;
let topic: Awaited<ReturnType<typeof readProviderTopic>>;
const accountA = freshName('a').toLowerCase().replace(/_/g, '-');
const accountB = freshName('b').toLowerCase().replace(/_/g, '-');
let apiA: Client;
let adminA: Client;
let apiB: Client;
let adminB: Client;

beforeAll(async () => {
  registry = await startRegistry({ SIGNING_SECRET_GRACE_S: String(graceSeconds) });
  topic = await readProviderTopic([accountA, accountB]);
  [apiA, adminA, apiB, adminB] = await Promise.all([
    registry.as(accountA, 'interactions:write'),
    registry.as(accountA, 'admin'),
    registry.as(accountB, 'interactions:write'),
    registry.as(accountB, 'admin'),
  ]);
}, 90_000);
afterAll(async () => {
  await topic?.stop();
  await registry?.stop();
});

const endpoint = 'https://93.184.216.34/hooks/cc';
const register = async (api: Client, provider: string, extra: Record<string, unknown> = {}) => {
  const reply = await api.register({
    provider,
    endpoint,
    headers: { Authorization: 'Bearer admin-test-token' },
    agentactionspermitted: { hold: 1 },
    ...extra,
  });
  if (reply.status !== 201 && reply.status !== 200)
    throw new Error(`register ${provider}: ${reply.status} ${reply.text}`);
  return reply;
};

const eventsOf = (account: string, provider: string, count: number) =>
  eventually(() => topic.of(account, provider), {
    accept: (m) => m.length >= count,
    what: `${count} events of ${provider}`,
  });

const open = (account: string, data: { provider: string; version: number; sealed: never }): SealedPayload =>
  openSealed(createSecretBox(testKeys), sealedEventAad(account, data.provider, data.version), data.sealed);

describe('admin API', () => {
  it('lists and gets providers with header values redacted, paged by name', async () => {
    await register(apiA, 'List-B');
    await register(apiA, 'List-A', { headers: { 'X-Tenant': 'secret-tenant' } });
    await register(apiA, 'List-C');
    const page1 = await adminA.get('/admin/providers?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.meta).toEqual({ page: 1, count: 2, pageCount: 2, totalCount: 3 });
    expectContract(listOf(providerView), page1.body);
    expect(page1.body.items.map((p: { provider: string }) => p.provider)).toEqual(['List-A', 'List-B']);
    expect(page1.body.items[0].headers).toEqual({ 'X-Tenant': '<redacted>' });
    expect(page1.text).not.toContain('secret-tenant');
    expect(page1.body.items[0].signingSecret).toBeUndefined();
    const page2 = await adminA.get('/admin/providers?limit=2&page=2');
    expect(page2.body.items.map((p: { provider: string }) => p.provider)).toEqual(['List-C']);

    const one = await adminA.get(providerPath('List-B'));
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      provider: 'List-B',
      endpoint,
      headers: { Authorization: '<redacted>' },
      permissions: { release: true, hold: true, retrieve: true, transferToAgent: false, transferToRoute: false },
    });
    expect(one.text).not.toContain('admin-test-token');
    expectContract(providerView, one.body);
    expect(one.body.signingSecret).toBeUndefined();

    const missing = await adminA.get(providerPath('Nope'));
    expect([missing.status, missing.body.code, missing.body.detail]).toEqual([
      404,
      'PROVIDER.NOT_FOUND',
      'No provider named "Nope" is registered for this account',
    ]);
    const badPage = await adminA.get('/admin/providers?limit=0');
    expect([badPage.status, badPage.body.errors[0].pointer]).toEqual([400, '/query/limit']);
  });

  it('deleting a provider emits provider.deleted; a later registration creates it anew with a higher version', async () => {
    const name = 'To Delete (again)';
    const created = await register(apiA, name);
    expect(created.status).toBe(201);
    const deleted = await adminA.delete(providerPath(name));
    expect(deleted.status).toBe(204);
    expect((await adminA.get(providerPath(name))).status).toBe(404);
    expect((await adminA.delete(providerPath(name))).status).toBe(404);
    const list = await adminA.get('/admin/providers');
    expect(list.body.items.map((p: { provider: string }) => p.provider)).not.toContain(name);

    const events = await eventsOf(accountA, name, 2);
    expect(events.map((m) => m.event.type)).toEqual(['provider.registered', 'provider.deleted']);
    expect(events[1]?.event.data).toEqual({ provider: name, version: 2, occurredAt: expect.any(String) });
    expect(events[1]?.key).toBe(`${accountA}:${name}`);

    // The tombstone keeps no endpoint, header or secret.
    const tombstone = await registry.rawProviders().findOne({ accountId: accountA, name });
    expect(tombstone).toMatchObject({ deleted: true, version: 2, endpoint: null, headers: [], signingSecrets: [] });

    const again = await register(apiA, name);
    expect(again.status).toBe(201);
    expect(again.body.signingSecret).toMatch(/^whsec_/);
    expect(again.body.signingSecret).not.toBe(created.body.signingSecret);
    const all = await eventsOf(accountA, name, 3);
    expect(all[2]?.event).toMatchObject({ type: 'provider.registered', data: { version: 3 } });
  });

  it('a name holding a slash: the gateway refuses its encoded path (400), the registry itself serves it', async () => {
    const name = 'With/slash';
    expect((await register(apiA, name)).status).toBe(201);
    const viaGateway = await adminA.get(providerPath(name));
    expect([viaGateway.status, viaGateway.body.detail]).toEqual([
      400,
      'The path must not contain encoded slashes or backslashes',
    ]);
    const direct = client(registry.directUrl, await registry.gateway.token(accountA, 'admin'));
    expect((await direct.get(providerPath(name))).body.provider).toBe(name);
    expect((await direct.delete(providerPath(name))).status).toBe(204);
    expect((await direct.get(providerPath(name))).status).toBe(404);
  });

  it('rotates the signing secret: the new one is shown once, the old one signs for the grace period', async () => {
    const name = 'Rotating';
    const created = await register(apiA, name);
    const oldSecret: string = created.body.signingSecret;
    const before = Date.now();
    const rotated = await adminA.post(`${providerPath(name)}/signing-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{32,128}$/);
    expect(rotated.body.signingSecret).not.toBe(oldSecret);
    expectContract(signingSecretRotation, rotated.body);
    const validUntil = Date.parse(rotated.body.previousValidUntil);
    expect(validUntil).toBeGreaterThanOrEqual(before + graceSeconds * 1000 - 1000);
    expect(validUntil).toBeLessThanOrEqual(Date.now() + graceSeconds * 1000);

    const events = await eventsOf(accountA, name, 2);
    const update = events[1]?.event;
    expect(update).toMatchObject({
      type: 'provider.updated',
      data: { reason: 'signing-secret-rotated', version: 2, endpoint },
    });
    for (const s of [oldSecret, rotated.body.signingSecret]) expect(events[1]?.value).not.toContain(s);
    expect(open(accountA, update?.data as never)).toEqual({
      headers: [{ key: 'Authorization', value: 'Bearer admin-test-token' }],
      signingSecrets: [
        { secret: rotated.body.signingSecret, validUntil: null },
        { secret: oldSecret, validUntil: rotated.body.previousValidUntil },
      ],
    });

    // A re-registration shows no secret and keeps both for the notifier.
    const replaced = await register(apiA, name, { agentactionspermitted: { transferToRoute: 1 } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.signingSecret).toBeUndefined();
    const three = await eventsOf(accountA, name, 3);
    expect(open(accountA, three[2]?.event.data as never).signingSecrets.map((s) => s.secret)).toEqual([
      rotated.body.signingSecret,
      oldSecret,
    ]);
    expect((await adminA.post(`${providerPath('Nope')}/signing-secret`)).status).toBe(404);
  });

  it('requires the admin scope', async () => {
    const reply = await apiA.get('/admin/providers');
    expect([reply.status, reply.body.code]).toEqual([403, 'AUTH.FORBIDDEN']);
    expect((await apiA.delete(providerPath('List-A'))).status).toBe(403);
    expect((await apiA.post(`${providerPath('List-A')}/signing-secret`)).status).toBe(403);
  });
});

describe('tenancy', () => {
  it("account B can neither see, delete nor rotate account A's provider; its own of the same name is separate", async () => {
    const name = 'Shared Name';
    const a = await register(apiA, name, { headers: { 'X-Owner': 'a' } });
    expect(a.status).toBe(201);

    expect((await adminB.get(providerPath(name))).status).toBe(404);
    expect((await adminB.get('/admin/providers')).body.items).toEqual([]);
    expect((await adminB.delete(providerPath(name))).status).toBe(404);
    expect((await adminB.post(`${providerPath(name)}/signing-secret`)).status).toBe(404);
    const stillA = await adminA.get(providerPath(name));
    expect(stillA.body).toMatchObject({ provider: name, headers: { 'X-Owner': '<redacted>' } });

    const b = await register(apiB, name, { endpoint: null, headers: {} });
    expect(b.status).toBe(201);
    expect(b.body.signingSecret).not.toBe(a.body.signingSecret);
    expect((await adminA.get(providerPath(name))).body).toMatchObject({
      endpoint,
      headers: { 'X-Owner': '<redacted>' },
    });
    expect((await adminB.get(providerPath(name))).body).toMatchObject({ endpoint: null, headers: {} });

    const eventsB = await eventsOf(accountB, name, 1);
    expect(eventsB.map((m) => m.key)).toEqual([`${accountB}:${name}`]);
    expect(topic.of(accountA, name).map((m) => m.event.type)).toEqual(['provider.registered']);
  });
});

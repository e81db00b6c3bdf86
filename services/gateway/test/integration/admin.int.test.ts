import { eventually, freshName, testInfra } from '@cc/testing';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import { allUpstreams, demo, form, getToken, startEchoUpstream, startGateway, type TestGateway } from './helpers';

interface AccountEvent {
  type: string;
  subject: string;
  accountid: string;
  data: { flags: Record<string, boolean>; changed: string[]; occurredAt: string };
}

// The gateway's own admin API (accounts, flags, clients, v0 credentials) through the real gateway, with the
// feature-flag events read back from the real Kafka topic.
describe('gateway admin API', () => {
  let gw: TestGateway;
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;
  let consumer: Consumer;
  const events: AccountEvent[] = [];
  const accountId = freshName('acct').toLowerCase().replace(/_/g, '-');
  let demoAdmin: string;
  let acctAdmin: string;
  let acctAdminClientId: string;

  beforeAll(async () => {
    const infra = await testInfra();
    upstream = await startEchoUpstream(() => `${gw.url}/.well-known/jwks.json`);
    gw = await startGateway(allUpstreams(upstream.url));
    consumer = new Kafka({
      brokers: infra.kafkaBrokers,
      clientId: 'gw-admin-test',
      logLevel: logLevel.NOTHING,
    }).consumer({
      groupId: freshName('gw-admin-test'),
    });
    await consumer.connect();
    await consumer.subscribe({ topic: 'cc.account.v1', fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const e = JSON.parse(message.value?.toString('utf8') ?? '{}') as AccountEvent;
        if (e.accountid === accountId) events.push(e);
      },
    });
    demoAdmin = await getToken(gw.url, demo.clientId, demo.secret, 'admin');
  });
  afterAll(async () => {
    await consumer?.disconnect();
    await gw?.stop();
    await upstream?.close();
  });

  const api = (method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('lets a platform-admin client create an account, which comes with a first admin client', async () => {
    const res = await api('POST', '/admin/accounts', demoAdmin, {
      accountId,
      name: 'Test Account',
      featureFlags: { agentSummaries: true },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { adminClient: { clientId: string; clientSecret: string } };
    expect(body).toMatchObject({
      accountId,
      name: 'Test Account',
      featureFlags: { agentSummaries: true, conversationAnalysis: true, v0Statistics: true },
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      adminClient: { clientId: expect.any(String), clientSecret: expect.any(String), scopes: ['admin'] },
    });
    acctAdminClientId = body.adminClient.clientId;
    acctAdmin = await getToken(gw.url, body.adminClient.clientId, body.adminClient.clientSecret, 'admin');

    const dup = await api('POST', '/admin/accounts', demoAdmin, { accountId, name: 'Again' });
    expect(dup.status).toBe(409);
    expect(await dup.json()).toMatchObject({ code: 'GATEWAY.ACCOUNT_EXISTS' });

    const list = await api('GET', '/admin/accounts?limit=5000', demoAdmin);
    expect(list.status).toBe(200);
    const page = (await list.json()) as { meta: Record<string, number>; items: { accountId: string }[] };
    expect(page.items.map((a) => a.accountId)).toEqual(expect.arrayContaining(['demo', accountId]));
    expect(page.meta).toMatchObject({ page: 1, count: page.items.length, totalCount: page.items.length, pageCount: 1 });
  });

  it('refuses account management to clients without the platform-admin flag, and bad bodies', async () => {
    const res = await api('POST', '/admin/accounts', acctAdmin, { accountId: 'sneaky', name: 'x' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'AUTH.FORBIDDEN' });
    expect((await api('GET', '/admin/accounts', acctAdmin)).status).toBe(403);
    const bad = await api('POST', '/admin/accounts', demoAdmin, { accountId: 'Bad Id!', name: '' });
    expect(bad.status).toBe(400);
    const problem = (await bad.json()) as { errors: { pointer: string }[] };
    expect(problem.errors.map((e) => e.pointer).sort()).toEqual(['/accountId', '/name']);
  });

  it("shows the token's own account and its flags", async () => {
    const res = await api('GET', '/admin/account', acctAdmin);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ accountId, name: 'Test Account' });
    const flags = await api('GET', '/admin/account/feature-flags', acctAdmin);
    expect(await flags.json()).toEqual({ agentSummaries: true, conversationAnalysis: true, v0Statistics: true });
    const v2 = await api('GET', '/admin/account', acctAdmin, undefined, { accept: 'application/vnd.cc-suite.v2+json' });
    expect(v2.status).toBe(406);
  });

  it('changes feature flags and publishes account.feature-flags-changed on cc.account.v1', async () => {
    const res = await api('PATCH', '/admin/account/feature-flags', acctAdmin, {
      agentSummaries: false,
      v0Statistics: false,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ agentSummaries: false, conversationAnalysis: true, v0Statistics: false });
    // No change, no event: the next change's event follows the previous one directly (one account, one partition).
    expect((await api('PATCH', '/admin/account/feature-flags', acctAdmin, { agentSummaries: false })).status).toBe(200);
    expect((await api('PATCH', '/admin/account/feature-flags', acctAdmin, { v0Statistics: true })).status).toBe(200);

    await eventually(() => events.length >= 3, { timeoutMs: 20000, what: 'three account events' });
    expect(events.map((e) => [e.type, e.subject, e.data.changed])).toEqual([
      ['account.feature-flags-changed', accountId, ['agentSummaries']],
      ['account.feature-flags-changed', accountId, ['agentSummaries', 'v0Statistics']],
      ['account.feature-flags-changed', accountId, ['v0Statistics']],
    ]);
    expect(events[1]?.data.flags).toEqual({ agentSummaries: false, conversationAnalysis: true, v0Statistics: false });

    const bad = await api('PATCH', '/admin/account/feature-flags', acctAdmin, { agentSumaries: true });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: { pointer: string }[] }).errors[0]?.pointer).toBe('/agentSumaries');
    expect((await api('PATCH', '/admin/account/feature-flags', acctAdmin, {})).status).toBe(400);
    const db = gw.svc.conn.db;
    const stored = await db?.collection('accounts').findOne({ _id: accountId as never });
    expect(stored?.outbox).toEqual([]);
  });

  it('manages API clients of the own account only: secret shown once, never listed', async () => {
    const created = await api('POST', '/admin/clients', acctAdmin, { name: 'WFM sync', scopes: ['stats'] });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const client = (await created.json()) as { clientId: string; clientSecret: string };
    expect(client.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stats = await getToken(gw.url, client.clientId, client.clientSecret, 'stats');
    expect(stats).toBeTruthy();

    const list = (await (await api('GET', '/admin/clients', acctAdmin)).json()) as { items: Record<string, unknown>[] };
    expect(list.items.map((c) => c.clientId).sort()).toEqual([acctAdminClientId, client.clientId].sort());
    for (const c of list.items) expect(c).not.toHaveProperty('clientSecret');
    const one = (await (await api('GET', `/admin/clients/${client.clientId}`, acctAdmin)).json()) as Record<
      string,
      unknown
    >;
    expect(one).toMatchObject({ clientId: client.clientId, name: 'WFM sync', scopes: ['stats'] });
    expect(one).not.toHaveProperty('clientSecret');

    // Another account's clients are invisible and untouchable.
    expect((await api('GET', `/admin/clients/${demo.clientId}`, acctAdmin)).status).toBe(404);
    expect((await api('DELETE', `/admin/clients/${demo.clientId}`, acctAdmin)).status).toBe(404);
    expect((await api('GET', `/admin/clients/${client.clientId}`, demoAdmin)).status).toBe(404);
    const demoList = (await (await api('GET', '/admin/clients', demoAdmin)).json()) as {
      items: { clientId: string }[];
    };
    expect(demoList.items.map((c) => c.clientId)).not.toContain(client.clientId);

    expect((await api('DELETE', `/admin/clients/${client.clientId}`, acctAdmin)).status).toBe(204);
    expect((await api('GET', `/admin/clients/${client.clientId}`, acctAdmin)).status).toBe(404);
    const again = await fetch(`${gw.url}/Auth/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        scope: 'stats',
      }),
    });
    expect(again.status).toBe(401);

    const badScope = await api('POST', '/admin/clients', acctAdmin, { name: 'x', scopes: ['root'] });
    expect(badScope.status).toBe(400);
  });

  it('manages v0 credentials: the token is shown once and works only on its own /v0 paths', async () => {
    const created = await api('POST', '/admin/v0-credentials', acctAdmin);
    expect(created.status).toBe(201);
    const cred = (await created.json()) as { accountKey: string; apiToken: string; createdAt: string };
    expect(cred.accountKey).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    const list = (await (await api('GET', '/admin/v0-credentials', acctAdmin)).json()) as {
      items: Record<string, unknown>[];
    };
    expect(list.items).toEqual([{ accountKey: cred.accountKey, createdAt: cred.createdAt }]);

    const tokenRes = await fetch(`${gw.url}/v0/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${cred.accountKey}:${cred.apiToken}`).toString('base64')}` },
    });
    expect(tokenRes.status).toBe(200);
    const { access_token: v0 } = (await tokenRes.json()) as { access_token: string };
    const own = await fetch(`${gw.url}/v0/${cred.accountKey}/statistics/agentstates?latest=true`, {
      headers: { authorization: `Bearer ${v0}` },
    });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { principal: { accountId: string } }).principal.accountId).toBe(accountId);
    const demoKey = await fetch(`${gw.url}/v0/${demo.v0Key}/statistics/agentstates?latest=true`, {
      headers: { authorization: `Bearer ${v0}` },
    });
    expect(demoKey.status).toBe(403);

    expect((await api('DELETE', `/admin/v0-credentials/${demo.v0Key}`, acctAdmin)).status).toBe(404);
    expect((await api('DELETE', `/admin/v0-credentials/${cred.accountKey}`, acctAdmin)).status).toBe(204);
    expect((await api('GET', '/admin/v0-credentials', acctAdmin)).status).toBe(200);
  });
});

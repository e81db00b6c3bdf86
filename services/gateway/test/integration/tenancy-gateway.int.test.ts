import { allUpstreams, demo, getToken, type Seen, startEchoUpstream, startGateway, type TestGateway } from './helpers';

// The gateway's half of tenancy: the account a service acts for is the token's, whatever the request says.
// (tenancy.int.test.ts proves the services' half through the gateway against provider-registry and routing.)
describe('gateway tenancy', () => {
  let gw: TestGateway;
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;
  let tokenA: string;
  let tokenB: string;
  let v0A: string;
  let keyB: string;

  beforeAll(async () => {
    upstream = await startEchoUpstream(() => `${gw.url}/.well-known/jwks.json`);
    gw = await startGateway(allUpstreams(upstream.url));
    const platform = await getToken(gw.url, demo.clientId, demo.secret, 'admin');
    const created = await fetch(`${gw.url}/admin/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform}`, 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: 'tenant-b', name: 'Tenant B' }),
    });
    const { adminClient } = (await created.json()) as { adminClient: { clientId: string; clientSecret: string } };
    const adminB = await getToken(gw.url, adminClient.clientId, adminClient.clientSecret, 'admin');
    const clientB = (await (
      await fetch(`${gw.url}/admin/clients`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminB}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'b', scopes: ['stats'] }),
      })
    ).json()) as { clientId: string; clientSecret: string };
    tokenB = await getToken(gw.url, clientB.clientId, clientB.clientSecret, 'stats');
    tokenA = await getToken(gw.url, demo.clientId, demo.secret, 'stats');
    const credB = (await (
      await fetch(`${gw.url}/admin/v0-credentials`, { method: 'POST', headers: { authorization: `Bearer ${adminB}` } })
    ).json()) as { accountKey: string };
    keyB = credB.accountKey;
    const v0 = await fetch(`${gw.url}/v0/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${demo.v0Key}:${demo.v0Token}`).toString('base64')}` },
    });
    v0A = ((await v0.json()) as { access_token: string }).access_token;
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it("the upstream acts for the token's account, not for headers or paths the caller adds", async () => {
    for (const [token, account] of [
      [tokenA, 'demo'],
      [tokenB, 'tenant-b'],
    ] as const) {
      const res = await fetch(`${gw.url}/stats/agent-activities?accountId=demo&account_id=demo`, {
        headers: { authorization: `Bearer ${token}`, 'x-account-id': 'demo', 'account-id': 'demo' },
      });
      expect(res.status).toBe(200);
      expect((upstream.seen.at(-1) as Seen).principal?.accountId).toBe(account);
    }
  });

  it("a v0 token of account A is refused on account B's /v0 paths before reaching the service", async () => {
    const before = upstream.seen.length;
    const res = await fetch(`${gw.url}/v0/${keyB}/statistics/agentstates?latest=true`, {
      headers: { authorization: `Bearer ${v0A}` },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      code: 'AUTH.FORBIDDEN',
      detail: 'The token was issued for another account key',
    });
    expect(upstream.seen.length).toBe(before);
    const own = await fetch(`${gw.url}/v0/${demo.v0Key}/statistics/agentstates?latest=true`, {
      headers: { authorization: `Bearer ${v0A}` },
    });
    expect(own.status).toBe(200);
  });
});

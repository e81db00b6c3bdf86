import { startTestIssuer, type TestIssuer } from '@cc/testing';
import { allUpstreams, form, type Seen, startEchoUpstream, startGateway, type TestGateway } from './helpers';

// An external OIDC issuer replaces the built-in one by configuration.
describe('gateway with an external issuer', () => {
  let gw: TestGateway;
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;
  let issuer: TestIssuer;

  beforeAll(async () => {
    issuer = await startTestIssuer('https://idp.example', 'cc-api');
    upstream = await startEchoUpstream(() => issuer.jwksUrl, { issuer: issuer.issuer, audience: issuer.audience });
    gw = await startGateway({
      ...allUpstreams(upstream.url),
      CC_DEMO_SEED: 'false',
      AUTH_ISSUER: issuer.issuer,
      AUTH_AUDIENCE: issuer.audience,
      AUTH_JWKS_URL: issuer.jwksUrl,
    });
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
    await issuer?.close();
  });

  it('disables the built-in token endpoints and JWKS', async () => {
    const res = await fetch(`${gw.url}/Auth/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ grant_type: 'client_credentials', scope: 'stats' }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'GATEWAY.TOKEN_ENDPOINT_DISABLED' });
    expect((await fetch(`${gw.url}/v0/oauth2/token`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${gw.url}/.well-known/jwks.json`)).status).toBe(404);
  });

  it("accepts the external issuer's tokens with their scope and account, and refuses others", async () => {
    const token = await issuer.token({ accountId: 'ext-acme', scopes: 'stats', clientId: 'idp-client' });
    const res = await fetch(`${gw.url}/stats/agent-activities`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect((upstream.seen.at(-1) as Seen).principal).toMatchObject({ accountId: 'ext-acme', clientId: 'idp-client' });
    const wrongScope = await issuer.token({ accountId: 'ext-acme', scopes: 'agent' });
    expect(
      (await fetch(`${gw.url}/stats/agent-activities`, { headers: { authorization: `Bearer ${wrongScope}` } })).status,
    ).toBe(403);
    const other = await startTestIssuer('https://idp.example', 'cc-api');
    try {
      const foreign = await other.token({ accountId: 'ext-acme', scopes: 'stats' });
      const refused = await fetch(`${gw.url}/stats/agent-activities`, {
        headers: { authorization: `Bearer ${foreign}` },
      });
      expect(refused.status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

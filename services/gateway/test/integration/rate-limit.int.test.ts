import { eventually } from '@cc/testing';
import { AccountsService } from '../../src/identity/accounts.service';
import { ClientsService } from '../../src/identity/clients.service';
import { openGatewayStore } from '../../src/store/gateway-store';
import {
  allUpstreams,
  demo,
  form,
  getToken,
  type Seen,
  startEchoUpstream,
  startGateway,
  type TestGateway,
} from './helpers';

// Per-client rate limits (rps 1 + burst 2 here) through the real gateway, account overrides, and token brute force.
describe('gateway rate limits', () => {
  let gw: TestGateway;
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;

  beforeAll(async () => {
    upstream = await startEchoUpstream(() => `${gw.url}/.well-known/jwks.json`);
    gw = await startGateway({
      ...allUpstreams(upstream.url),
      RATE_LIMIT_RPS: '1',
      RATE_LIMIT_BURST: '2',
      ACCOUNT_CACHE_MS: '0',
      TOKEN_FAILURES_PER_CLIENT: '3',
    });
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  const call = (token: string) =>
    fetch(`${gw.url}/stats/agent-activities`, { headers: { authorization: `Bearer ${token}` } });

  /** A fresh client of the demo account (created through the store: admin calls would spend the demo allowance). */
  async function freshClient(accountId = 'demo'): Promise<string> {
    const clients = new ClientsService(openGatewayStore(gw.svc.conn).clients);
    const c = await clients.create({ accountId, name: 'rl', scopes: ['stats'] });
    return getToken(gw.url, c.clientId, c.clientSecret, 'stats');
  }

  it('answers 429 with Retry-After and RateLimit-* after the configured burst, then recovers', async () => {
    const token = await freshClient();
    const before = upstream.seen.length;
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(token);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('3');
      remaining.push(res.headers.get('ratelimit-remaining') ?? '');
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await call(token);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(await limited.json()).toMatchObject({ status: 429, code: 'REQUEST.RATE_LIMITED' });
    expect(upstream.seen.length - before).toBe(3);

    // After Retry-After the sustained rate is available again.
    await eventually(async () => (await call(token)).status === 200, {
      intervalMs: 250,
      timeoutMs: 5000,
      what: 'recovery',
    });
  });

  it('counts each client on its own', async () => {
    const [a, b] = await Promise.all([freshClient(), freshClient()]);
    for (let i = 0; i < 3; i++) expect((await call(a)).status).toBe(200);
    expect((await call(a)).status).toBe(429);
    expect((await call(b)).status).toBe(200);
  });

  it('applies the account override instead of the default', async () => {
    const store = openGatewayStore(gw.svc.conn);
    const accounts = new AccountsService(store.accounts);
    await accounts.create({ accountId: 'rl-big', name: 'Big' });
    await accounts.setRateLimit('rl-big', { rps: 2, burst: 4 });
    const token = await freshClient('rl-big');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await call(token)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    const seen = upstream.seen.at(-1) as Seen;
    expect(seen.principal?.accountId).toBe('rl-big');
  });

  it('blocks a client id after repeated failed token requests, even with the right secret', async () => {
    const attempt = (secret: string) =>
      fetch(`${gw.url}/Auth/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({
          grant_type: 'client_credentials',
          client_id: demo.clientId,
          client_secret: secret,
          scope: 'stats',
        }),
      });
    for (let i = 0; i < 3; i++) expect((await attempt(`guess-${i}`)).status).toBe(401);
    const blocked = await attempt(demo.secret);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(60);
    expect(await blocked.json()).toMatchObject({ code: 'REQUEST.RATE_LIMITED' });
  });
});

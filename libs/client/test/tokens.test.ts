import { createClient, OAuthError, TokenSource } from '../src/index';
import { type Seen, send, startServer, type TestServer } from './helpers';

/** A token endpoint issuing `t<n>` tokens with the given lifetime, counting requests per scope. */
function tokenEndpoint(expiresIn: number, delayMs = 0) {
  let issued = 0;
  return async (req: Seen, res: Parameters<typeof send>[0]) => {
    if (req.url !== '/Auth/connect/token') return send(res, 404, { code: 'X' });
    const basic = Buffer.from(String(req.headers.authorization).replace(/^Basic /, ''), 'base64').toString();
    if (basic !== 'app%3A1:s%C3%A9cret') return send(res, 401, { error: 'invalid_client' });
    const form = new URLSearchParams(req.body);
    if (form.get('grant_type') !== 'client_credentials') return send(res, 400, { error: 'unsupported_grant_type' });
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    issued += 1;
    send(res, 200, {
      access_token: `t${issued}-${form.get('scope')}`,
      token_type: 'Bearer',
      expires_in: expiresIn,
      scope: form.get('scope'),
    });
  };
}

describe('TokenSource (client credentials against a real HTTP server)', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends HTTP Basic with form-encoded credentials and caches the token per scope', async () => {
    server = await startServer(tokenEndpoint(7200));
    const tokens = new TokenSource({
      tokenUrl: `${server.url}/Auth/connect/token`,
      clientId: 'app:1',
      clientSecret: 'sécret',
    });
    expect(await tokens.token('stats')).toBe('t1-stats');
    expect(await tokens.token('stats')).toBe('t1-stats');
    expect(await tokens.token('admin')).toBe('t2-admin');
    expect(server.seen).toHaveLength(2);
    expect(server.seen[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(server.seen[0]?.body).get('scope')).toBe('stats');
  });

  it('refreshes before expiry: not before the margin, and again once inside it', async () => {
    server = await startServer(tokenEndpoint(600));
    let now = 1_000_000;
    const tokens = new TokenSource({
      tokenUrl: `${server.url}/Auth/connect/token`,
      clientId: 'app:1',
      clientSecret: 'sécret',
      refreshBeforeSeconds: 60,
      now: () => now,
    });
    expect(await tokens.token('stats')).toBe('t1-stats');
    now += 539_000; // 61 s before expiry
    expect(await tokens.token('stats')).toBe('t1-stats');
    now += 2_000; // 59 s before expiry: inside the margin, so a new token although the old one still works
    expect(await tokens.token('stats')).toBe('t2-stats');
    expect(tokens.requests).toBe(2);
  });

  it('never lets a short-lived token be refreshed on every call: the margin is at most half the lifetime', async () => {
    server = await startServer(tokenEndpoint(10));
    let now = 0;
    const tokens = new TokenSource({
      tokenUrl: `${server.url}/Auth/connect/token`,
      clientId: 'app:1',
      clientSecret: 'sécret',
      now: () => now,
    });
    await tokens.token('agent');
    now = 4_999;
    expect(await tokens.token('agent')).toBe('t1-agent');
    now = 5_000;
    expect(await tokens.token('agent')).toBe('t2-agent');
  });

  it('keeps one refresh in flight however many calls wait for it', async () => {
    server = await startServer(tokenEndpoint(7200, 100));
    const tokens = new TokenSource({
      tokenUrl: `${server.url}/Auth/connect/token`,
      clientId: 'app:1',
      clientSecret: 'sécret',
    });
    const all = await Promise.all(Array.from({ length: 20 }, () => tokens.token('stats')));
    expect(new Set(all)).toEqual(new Set(['t1-stats']));
    expect(server.seen).toHaveLength(1);
  });

  it('throws the RFC 6749 error of the token endpoint as an OAuthError, and tries again on the next call', async () => {
    server = await startServer(tokenEndpoint(7200));
    const tokens = new TokenSource({
      tokenUrl: `${server.url}/Auth/connect/token`,
      clientId: 'app:1',
      clientSecret: 'wrong',
    });
    const err = await tokens.token('stats').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthError);
    expect(err).toMatchObject({ status: 401, error: 'invalid_client' });
    await expect(tokens.token('stats')).rejects.toBeInstanceOf(OAuthError);
    expect(server.seen).toHaveLength(2);
  });

  it('gives each API call the token of the scope its OpenAPI operation requires', async () => {
    const token = tokenEndpoint(7200);
    server = await startServer((req, res) => {
      if (req.url === '/Auth/connect/token') return token(req, res);
      send(res, 200, {
        meta: { page: 1, count: 0, pageCount: 0, totalCount: 0 },
        items: [],
        upTo: '2026-01-01T00:00:00.000Z',
      });
    });
    const cc = createClient({ baseUrl: `${server.url}/`, clientId: 'app:1', clientSecret: 'sécret' });
    await cc.statistics.GET('/stats/interactions', { params: { query: { start: '2026-01-01T00:00:00Z' } } });
    await cc.admin.GET('/admin/agents', {});
    await cc.statistics.GET('/stats/agent-activities', { params: { query: { start: '2026-01-01T00:00:00Z' } } });
    const api = server.seen.filter((s) => s.url !== '/Auth/connect/token');
    expect(api.map((s) => [s.url.split('?')[0], s.headers.authorization])).toEqual([
      ['/stats/interactions', 'Bearer t1-stats'],
      ['/admin/agents', 'Bearer t2-admin'],
      ['/stats/agent-activities', 'Bearer t1-stats'],
    ]);
  });
});

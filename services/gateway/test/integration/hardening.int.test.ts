import { request as httpRequest } from 'node:http';
import { allUpstreams, demo, form, getToken, startEchoUpstream, startGateway, type TestGateway } from './helpers';

// Issue 19: defects an outside review found at the gateway, each reproduced through a real gateway.
describe('gateway hardening (issue 19)', () => {
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;
  const gateways: TestGateway[] = [];
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = await startEchoUpstream(() => `${gw.url}/.well-known/jwks.json`);
    gw = await startGateway(allUpstreams(upstream.url));
    gateways.push(gw);
  });
  afterAll(async () => {
    for (const g of gateways) await g.stop();
    await upstream?.close();
  });

  const tokenAttempt = (url: string, forwardedFor: string) =>
    fetch(`${url}/Auth/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor },
      body: form({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x', scope: 'stats' }),
    });

  it('item 2: a client cannot get a fresh per-IP token limit by sending its own X-Forwarded-For', async () => {
    const limited = await startGateway({ ...allUpstreams(upstream.url), TOKEN_ATTEMPTS_PER_MINUTE: '3' });
    gateways.push(limited);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await tokenAttempt(limited.url, `203.0.113.${i + 1}`)).status);
    expect(statuses.slice(0, 3).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(3)).toEqual([429, 429]);
  });

  it('item 2: X-Forwarded-For is believed only from a configured proxy (TRUST_PROXY)', async () => {
    const behindProxy = await startGateway({
      ...allUpstreams(upstream.url),
      TOKEN_ATTEMPTS_PER_MINUTE: '3',
      TRUST_PROXY: '127.0.0.1',
    });
    gateways.push(behindProxy);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await tokenAttempt(behindProxy.url, `198.51.100.${i + 1}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    for (let i = 0; i < 3; i++) await tokenAttempt(behindProxy.url, '198.51.100.200');
    expect((await tokenAttempt(behindProxy.url, '198.51.100.200')).status).toBe(429);
  });

  it('item 3: credentials in the query string are censored in the gateway log', async () => {
    const token = await getTokenFrom(gw.url);
    await fetch(`${gw.url}/stats/agent-activities?authorization=S1x&key=S2x&code=S3x&sig=S4x&token=S5x&page=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const text = gw.logs.text();
    expect(text).toContain('/stats/agent-activities?');
    for (const s of ['S1x', 'S2x', 'S3x', 'S4x', 'S5x']) expect(text).not.toContain(s);
  });

  it('item 5: a 64 KB token or a 60 KB URL is answered 431 with a problem body', async () => {
    const huge = await rawGet(gw.url, '/stats/agent-activities', { authorization: `Bearer ${'a'.repeat(64 * 1024)}` });
    expect(huge.status).toBe(431);
    expect(huge.contentType).toMatch(/application\/problem\+json/);
    expect(JSON.parse(huge.body)).toMatchObject({ status: 431, code: 'REQUEST.HEADERS_TOO_LARGE' });
    const longUrl = await rawGet(gw.url, `/stats/agent-activities?q=${'b'.repeat(60 * 1024)}`, {});
    expect(longUrl.status).toBe(431);
    expect(JSON.parse(longUrl.body)).toMatchObject({ status: 431 });
  });

  it('item 7: two Authorization headers are 400', async () => {
    const token = await getTokenFrom(gw.url);
    const res = await rawGet(gw.url, '/stats/agent-activities', {
      authorization: [`Bearer ${token}`, 'Bearer other'],
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'REQUEST.VALIDATION' });
  });
});

function getTokenFrom(url: string): Promise<string> {
  return getToken(url, demo.clientId, demo.secret, 'stats');
}

/** A GET with headers fetch cannot send (repeated, or beyond the server's header limit). */
function rawGet(
  base: string,
  path: string,
  headers: Record<string, string | string[]>,
): Promise<{ status: number; contentType: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { headers, maxHeaderSize: 1024 * 1024 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

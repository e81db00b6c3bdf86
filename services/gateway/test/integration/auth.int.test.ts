import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { accessTokenClaims, v0TokenClaims } from '../../src/domain/token-claims';
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

// Tokens issued and verified through the real gateway, a real upstream that verifies again, and each failure.
describe('gateway authentication and authorization', () => {
  let gw: TestGateway;
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;

  beforeAll(async () => {
    upstream = await startEchoUpstream(() => `${gw.url}/.well-known/jwks.json`);
    gw = await startGateway(allUpstreams(upstream.url));
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  const statsUrl = () => `${gw.url}/stats/agent-activities?start=2024-05-01T00:00:00Z`;
  const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
    fetch(url, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });

  async function expectProblem(res: Response, status: number, code: string, detail: RegExp) {
    const body = (await res.json()) as Record<string, unknown>;
    expect({ status: res.status, code: body.code }).toEqual({ status, code });
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(body).toMatchObject({ status, instance: expect.any(String), type: expect.stringContaining('https://') });
    expect(String(body.detail)).toMatch(detail);
    return body;
  }

  it('issues a token for form-body credentials, which the gateway and the upstream both accept', async () => {
    const res = await fetch(`${gw.url}/Auth/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({
        grant_type: 'client_credentials',
        client_id: demo.clientId,
        client_secret: demo.secret,
        scope: 'stats',
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { access_token: string; token_type: string; expires_in: number; scope: string };
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'stats' });
    const header = decodeProtectedHeader(body.access_token);
    const payload = decodeJwt(body.access_token);
    expect(header).toMatchObject({ alg: 'ES256', kid: expect.any(String) });
    expect(payload).toMatchObject({
      iss: 'cc-suite',
      aud: 'cc-suite-api',
      sub: demo.clientId,
      account_id: 'demo',
      scope: 'stats',
      jti: expect.any(String),
    });
    expect(Number(payload.exp) - Number(payload.iat)).toBe(7200);

    const before = upstream.seen.length;
    const proxied = await get(statsUrl(), body.access_token, { 'x-request-id': 'req-auth-1' });
    expect(proxied.status).toBe(200);
    expect(proxied.headers.get('x-upstream')).toBe('echo');
    expect(proxied.headers.get('x-request-id')).toBe('req-auth-1');
    const seen = upstream.seen.slice(before).at(-1) as Seen;
    // Defence in depth: the upstream got the original token and verified it itself against the gateway's JWKS.
    expect(seen.headers.authorization).toBe(`Bearer ${body.access_token}`);
    expect(seen.principal).toMatchObject({ accountId: 'demo', clientId: demo.clientId, scopes: ['stats'] });
    expect(seen.headers['x-request-id']).toBe('req-auth-1');
    expect(seen.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(seen.url).toBe('/stats/agent-activities?start=2024-05-01T00:00:00Z');
  });

  it('issues a token for HTTP Basic credentials', async () => {
    const res = await fetch(`${gw.url}/Auth/connect/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${demo.clientId}:${demo.secret}`).toString('base64')}`,
      },
      body: form({ grant_type: 'client_credentials', scope: 'admin' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { scope: string }).scope).toBe('admin');
  });

  it('publishes the signing key at /.well-known/jwks.json', async () => {
    const res = await fetch(`${gw.url}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    const jwks = (await res.json()) as { keys: Record<string, string>[] };
    expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  describe('RFC 6749 errors of the token endpoint', () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${gw.url}/Auth/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });

    it.each([
      [
        'wrong secret',
        401,
        'invalid_client',
        { grant_type: 'client_credentials', client_id: demo.clientId, client_secret: 'nope', scope: 'stats' },
      ],
      [
        'unknown client',
        401,
        'invalid_client',
        { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'nope', scope: 'stats' },
      ],
      ['no credentials', 401, 'invalid_client', { grant_type: 'client_credentials', scope: 'stats' }],
      [
        'no grant_type',
        400,
        'invalid_request',
        { client_id: demo.clientId, client_secret: demo.secret, scope: 'stats' },
      ],
      [
        'another grant',
        400,
        'unsupported_grant_type',
        { grant_type: 'password', client_id: demo.clientId, client_secret: demo.secret, scope: 'stats' },
      ],
      [
        'no scope',
        400,
        'invalid_scope',
        { grant_type: 'client_credentials', client_id: demo.clientId, client_secret: demo.secret },
      ],
      [
        'two scopes',
        400,
        'invalid_scope',
        {
          grant_type: 'client_credentials',
          client_id: demo.clientId,
          client_secret: demo.secret,
          scope: 'stats admin',
        },
      ],
      [
        'unknown scope',
        400,
        'invalid_scope',
        { grant_type: 'client_credentials', client_id: demo.clientId, client_secret: demo.secret, scope: 'root' },
      ],
    ])('%s → %i %s', async (_what, status, error, fields) => {
      const res = await post(form(fields as Record<string, string>));
      expect(res.status).toBe(status);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = (await res.json()) as { error: string; error_description: string };
      expect(body.error).toBe(error);
      expect(body.error_description).toEqual(expect.any(String));
      if (status === 401) expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
    });

    it('answers invalid_client with a Basic challenge for wrong Basic credentials', async () => {
      const res = await post(form({ grant_type: 'client_credentials', scope: 'stats' }), {
        authorization: `Basic ${Buffer.from(`${demo.clientId}:wrong`).toString('base64')}`,
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      expect(await res.json()).toMatchObject({ error: 'invalid_client' });
    });

    it('refuses credentials in two places, in the URL, and a JSON body', async () => {
      const both = await post(form({ grant_type: 'client_credentials', scope: 'stats', client_secret: demo.secret }), {
        authorization: `Basic ${Buffer.from(`${demo.clientId}:${demo.secret}`).toString('base64')}`,
      });
      expect(both.status).toBe(400);
      expect(await both.json()).toMatchObject({ error: 'invalid_request' });
      const inUrl = await fetch(`${gw.url}/Auth/connect/token?client_secret=${demo.secret}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ grant_type: 'client_credentials', client_id: demo.clientId, scope: 'stats' }),
      });
      expect(inUrl.status).toBe(400);
      expect(await inUrl.json()).toMatchObject({ error: 'invalid_request' });
      const json = await fetch(`${gw.url}/Auth/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials' }),
      });
      expect(json.status).toBe(400);
      expect(await json.json()).toMatchObject({ error: 'invalid_request' });
    });

    it('refuses a scope the client was not given', async () => {
      const created = await createClient(['stats']);
      const res = await post(
        form({
          grant_type: 'client_credentials',
          client_id: created.clientId,
          client_secret: created.clientSecret,
          scope: 'admin',
        }),
      );
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_scope' });
    });
  });

  async function createClient(scopes: string[]) {
    const admin = await getToken(gw.url, demo.clientId, demo.secret, 'admin');
    const res = await fetch(`${gw.url}/admin/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'narrow', scopes }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { clientId: string; clientSecret: string };
  }

  describe('each failure gets the right status and body', () => {
    it('no token → 401 with a Bearer challenge', async () => {
      const res = await get(statsUrl());
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      await expectProblem(res, 401, 'AUTH.UNAUTHENTICATED', /bearer token is required/);
    });

    it('not a bearer token → 401', async () => {
      const res = await fetch(statsUrl(), { headers: { authorization: 'Basic Zm9vOmJhcg==' } });
      await expectProblem(res, 401, 'AUTH.UNAUTHENTICATED', /not a bearer token/);
    });

    it('malformed token → 401', async () => {
      await expectProblem(await get(statsUrl(), 'not.a.jwt'), 401, 'AUTH.UNAUTHENTICATED', /malformed|could not/);
    });

    it('bad signature (payload changed after signing) → 401', async () => {
      const token = await getToken(gw.url, demo.clientId, demo.secret, 'stats');
      const [h, , s] = token.split('.') as [string, string, string];
      const claims = decodeJwt(token);
      const forged = Buffer.from(JSON.stringify({ ...claims, account_id: 'someone-else' })).toString('base64url');
      const res = await get(statsUrl(), `${h}.${forged}.${s}`);
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      await expectProblem(res, 401, 'AUTH.UNAUTHENTICATED', /signature is invalid/);
    });

    it('signed by a foreign key that claims the gateway kid → 401', async () => {
      const jwks = (await (await fetch(`${gw.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
      const { privateKey } = await generateKeyPair('ES256');
      const token = await new SignJWT(accessTokenClaims({ accountId: 'demo', clientId: demo.clientId, scope: 'stats' }))
        .setProtectedHeader({ alg: 'ES256', kid: jwks.keys[0]?.kid as string })
        .setIssuer('cc-suite')
        .setAudience('cc-suite-api')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey);
      await expectProblem(await get(statsUrl(), token), 401, 'AUTH.UNAUTHENTICATED', /signature is invalid/);
    });

    it('alg none → 401', async () => {
      const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const now = Math.floor(Date.now() / 1000);
      const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({
        ...accessTokenClaims({ accountId: 'demo', clientId: demo.clientId, scope: 'stats' }),
        iss: 'cc-suite',
        aud: 'cc-suite-api',
        iat: now,
        exp: now + 3600,
      })}.`;
      const before = upstream.seen.length;
      const res = await get(statsUrl(), token);
      await expectProblem(res, 401, 'AUTH.UNAUTHENTICATED', /algorithm is not accepted|malformed/);
      expect(upstream.seen.length).toBe(before);
    });

    it('expired → 401', async () => {
      const issuer = gw.svc.issuer;
      if (!issuer) throw new Error('built-in issuer expected');
      const token = await issuer.sign(
        accessTokenClaims({ accountId: 'demo', clientId: demo.clientId, scope: 'stats' }),
        7200,
        {
          issuedAt: new Date(Date.now() - 3 * 3600_000),
        },
      );
      await expectProblem(await get(statsUrl(), token), 401, 'AUTH.UNAUTHENTICATED', /expired/);
    });

    it('wrong audience → 401', async () => {
      const issuer = gw.svc.issuer;
      if (!issuer) throw new Error('built-in issuer expected');
      const token = await issuer.sign(
        accessTokenClaims({ accountId: 'demo', clientId: demo.clientId, scope: 'stats' }),
        600,
        {
          audience: 'another-api',
        },
      );
      await expectProblem(await get(statsUrl(), token), 401, 'AUTH.UNAUTHENTICATED', /aud claim/);
    });

    it('wrong scope → 403 naming the required scope', async () => {
      const token = await getToken(gw.url, demo.clientId, demo.secret, 'interaction-content:read');
      const res = await get(statsUrl(), token);
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="stats"');
      const body = await expectProblem(res, 403, 'AUTH.FORBIDDEN', /requires the scope 'stats'/);
      expect(body.requiredScope).toBe('stats');
    });

    it.each([
      ['/interactions/Invoke', 'interactions:write', 'POST'],
      ['/interactions/register', 'interactions:write', 'POST'],
      ['/stats/wfm/agent-summaries', 'stats', 'GET'],
      ['/conversation-analyzer/interactions?calls=a', 'interaction-content:read', 'GET'],
      ['/admin/skills', 'admin', 'GET'],
      ['/agent-desktop/agents/a1/offers', 'agent', 'GET'],
    ])('%s requires the scope %s', async (path, scope, method) => {
      const other = scope === 'stats' ? 'admin' : 'stats';
      const wrong = await getToken(gw.url, demo.clientId, demo.secret, other);
      const right = await getToken(gw.url, demo.clientId, demo.secret, scope);
      const call = (t: string) =>
        fetch(`${gw.url}${path}`, {
          method: String(method),
          headers: {
            authorization: `Bearer ${t}`,
            ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
          },
          ...(method === 'POST' ? { body: '{}' } : {}),
        });
      expect((await call(wrong)).status).toBe(403);
      const ok = await call(right);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-upstream')).toBe('echo');
    });

    it('a v0 token on a non-v0 path → 401', async () => {
      const v0 = await v0Token(demo.v0Key, demo.v0Token);
      const before = upstream.seen.length;
      const res = await get(statsUrl(), v0);
      await expectProblem(res, 401, 'AUTH.UNAUTHENTICATED', /valid only on \/v0 paths/);
      expect(upstream.seen.length).toBe(before);
    });
  });

  async function v0Token(key: string, token: string): Promise<string> {
    const res = await fetch(`${gw.url}/v0/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${key}:${token}`).toString('base64')}`,
      },
      body: form({ grant_type: 'client_credentials' }),
    });
    const body = (await res.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    return body.access_token;
  }

  describe('the v0 flow', () => {
    it('issues a one-hour v0 token that works on /v0 paths of its own account key only', async () => {
      const token = await v0Token(demo.v0Key, demo.v0Token);
      const own = await get(`${gw.url}/v0/${demo.v0Key}/statistics/agentstates?interval=15`, token);
      expect(own.status).toBe(200);
      const seen = upstream.seen.at(-1) as Seen;
      expect(seen.principal).toMatchObject({ accountId: 'demo', clientId: demo.v0Key, flavour: 'v0' });

      const other = await get(`${gw.url}/v0/someone-else/statistics/agentstates?interval=15`, token);
      await expectProblem(other, 403, 'AUTH.FORBIDDEN', /another account key/);
    });

    it('refuses API tokens on /v0 paths and wrong v0 credentials', async () => {
      const api = await getToken(gw.url, demo.clientId, demo.secret, 'stats');
      await expectProblem(
        await get(`${gw.url}/v0/${demo.v0Key}/statistics/agentstates`, api),
        401,
        'AUTH.UNAUTHENTICATED',
        /only v0 tokens/,
      );
      const bad = await fetch(`${gw.url}/v0/oauth2/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${demo.v0Key}:wrong`).toString('base64')}` },
      });
      expect(bad.status).toBe(401);
      expect(await bad.json()).toMatchObject({ error: 'invalid_client' });
      const none = await fetch(`${gw.url}/v0/oauth2/token`, { method: 'POST' });
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Basic /);
    });

    it("marks the gateway's own answers on /v0 statistics paths as deprecated (RFC 9745, RFC 8594), not others", async () => {
      const expectDeprecated = (res: Response, replacement: string | null) => {
        expect(res.headers.get('deprecation')).toBe('@1735689600');
        expect(res.headers.get('sunset')).toBe('Thu, 01 Jul 2027 00:00:00 GMT');
        const link = res.headers.get('link') ?? '';
        expect(link).toContain('</docs>; rel="deprecation"');
        if (replacement) expect(link).toContain(`<${replacement}>; rel="successor-version"`);
        else expect(link).not.toContain('successor-version');
      };
      const none = await fetch(`${gw.url}/v0/${demo.v0Key}/statistics/outboundcalls?interval=15`);
      await expectProblem(none, 401, 'AUTH.UNAUTHENTICATED', /token/i);
      expectDeprecated(none, '/stats/interactions');

      const token = await v0Token(demo.v0Key, demo.v0Token);
      const other = await get(`${gw.url}/v0/someone-else/statistics/agentstates?interval=15`, token);
      expect(other.status).toBe(403);
      expectDeprecated(other, '/stats/agent-activities');
      const proxied = await get(`${gw.url}/v0/${demo.v0Key}/statistics/inboundcalls?interval=15`, token);
      expect(proxied.status).toBe(200);
      expectDeprecated(proxied, '/stats/interactions');
      const unknown = await fetch(`${gw.url}/v0/${demo.v0Key}/statistics/nothing-here`);
      expect(unknown.status).toBe(401);
      expectDeprecated(unknown, null);

      const current = await fetch(`${gw.url}/stats/agent-activities?start=2026-01-01T00:00:00Z`);
      expect(current.status).toBe(401);
      expect(current.headers.get('deprecation')).toBeNull();
      expect(current.headers.get('sunset')).toBeNull();
    });

    it('a v0 token of the right key but signed by a stranger → 401', async () => {
      const { privateKey, publicKey } = await generateKeyPair('ES256');
      expect(await exportJWK(publicKey)).toHaveProperty('x');
      const token = await new SignJWT(v0TokenClaims({ accountId: 'demo', accountKey: demo.v0Key }))
        .setProtectedHeader({ alg: 'ES256', kid: 'stranger' })
        .setIssuer('cc-suite')
        .setAudience('cc-suite-api')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey);
      await expectProblem(
        await get(`${gw.url}/v0/${demo.v0Key}/statistics/agentstates`, token),
        401,
        'AUTH.UNAUTHENTICATED',
        /unknown key/,
      );
    });
  });

  describe('secrets', () => {
    it('stores client secrets and v0 tokens only as scrypt hashes and never logs them', async () => {
      const created = await createClient(['stats']);
      await getToken(gw.url, created.clientId, created.clientSecret, 'stats');
      // A failed attempt with the secret in the URL must not put it in the access log either.
      await fetch(`${gw.url}/Auth/connect/token?client_secret=${created.clientSecret}`, { method: 'POST' });
      await v0Token(demo.v0Key, demo.v0Token);

      const db = gw.svc.conn.db;
      if (!db) throw new Error('no db');
      const clients = await db.collection('api_clients').find({}).toArray();
      expect(clients.length).toBeGreaterThanOrEqual(2);
      for (const c of clients)
        expect(c.secretHash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      const creds = await db.collection('v0_credentials').find({}).toArray();
      for (const c of creds) expect(c.tokenHash).toMatch(/^scrypt\$/);
      const dump = JSON.stringify([clients, creds]);
      for (const secret of [created.clientSecret, demo.secret, demo.v0Token]) expect(dump).not.toContain(secret);

      const logText = gw.logs.text();
      expect(gw.logs.lines.length).toBeGreaterThan(10);
      expect(logText).toContain('token issued');
      for (const secret of [created.clientSecret, demo.secret, demo.v0Token, 'demo-secret-change-me']) {
        expect(logText).not.toContain(secret);
        expect(logText).not.toContain(encodeURIComponent(secret));
      }
    });
  });
});

import express from 'express';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import request from 'supertest';
import { claims, createTokenVerifier, principalOf, requireAuth } from '../src/auth';
import { problemHandler } from '../src/http/app';
import { createLogger } from '../src/logger';

let jwk: JWK;
let sign: (claimsSet: Record<string, unknown>, opts?: { exp?: string; aud?: string; iss?: string }) => Promise<string>;
let app: express.Express;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  sign = (c, o = {}) =>
    new SignJWT(c)
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(o.iss ?? 'cc-suite')
      .setAudience(o.aud ?? 'cc-suite-api')
      .setSubject('client-1')
      .setIssuedAt()
      .setExpirationTime(o.exp ?? '2h')
      .sign(privateKey);
  const verify = createTokenVerifier({ issuer: 'cc-suite', audience: 'cc-suite-api', jwks: { keys: [jwk] } });
  app = express();
  app.get('/stats/x', requireAuth(verify, 'stats'), (_req, res) => {
    res.json(principalOf(res));
  });
  app.get('/v0/x', requireAuth(verify, 'v0', { v0: true }), (_req, res) => {
    res.json(principalOf(res));
  });
  app.use(problemHandler(createLogger('t', 'silent')));
});

const get = (path: string, token?: string) => {
  const r = request(app).get(path);
  return token ? r.set('authorization', `Bearer ${token}`) : r;
};

describe('requireAuth', () => {
  it('accepts a valid token of the right scope and exposes the account', async () => {
    const res = await get('/stats/x', await sign({ [claims.account]: 'acc-1', scope: 'stats' }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accountId: 'acc-1', clientId: 'client-1', scopes: ['stats'], flavour: 'api' });
  });

  it('401 without a token, with a garbage token, an expired one, a wrong audience or issuer', async () => {
    const cases = [
      await get('/stats/x'),
      await get('/stats/x', 'abc.def.ghi'),
      await get('/stats/x', await sign({ [claims.account]: 'a', scope: 'stats' }, { exp: '-1m' })),
      await get('/stats/x', await sign({ [claims.account]: 'a', scope: 'stats' }, { aud: 'other' })),
      await get('/stats/x', await sign({ [claims.account]: 'a', scope: 'stats' }, { iss: 'evil' })),
    ];
    expect(cases.map((c) => c.status)).toEqual([401, 401, 401, 401, 401]);
    expect(cases[2]?.body.detail).toBe('The token has expired');
    expect(cases[3]?.body.detail).toMatch(/aud/);
    expect(cases[0]?.headers['www-authenticate']).toBe('Bearer');
  });

  it('refuses alg none and a token signed by another key', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const body = Buffer.from(
      JSON.stringify({
        iss: 'cc-suite',
        aud: 'cc-suite-api',
        sub: 'c',
        account_id: 'a',
        scope: 'stats',
        exp: 9999999999,
      }),
    ).toString('base64url');
    expect((await get('/stats/x', `${header}.${body}.`)).status).toBe(401);
    const other = await generateKeyPair('ES256');
    const forged = await new SignJWT({ account_id: 'a', scope: 'stats' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer('cc-suite')
      .setAudience('cc-suite-api')
      .setSubject('c')
      .setExpirationTime('1h')
      .sign(other.privateKey);
    const res = await get('/stats/x', forged);
    expect(res.status).toBe(401);
    expect(res.body.detail).toBe('The token signature is invalid');
  });

  it('403 for the wrong scope, naming the scope required', async () => {
    const res = await get('/stats/x', await sign({ [claims.account]: 'a', scope: 'interactions:write' }));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'AUTH.FORBIDDEN', requiredScope: 'stats' });
  });

  it('confines v0 tokens to /v0 and keeps API tokens out of /v0', async () => {
    const v0 = await sign({ [claims.account]: 'a', scope: 'v0 stats', [claims.flavour]: 'v0' });
    expect((await get('/stats/x', v0)).status).toBe(401);
    expect((await get('/v0/x', v0)).status).toBe(200);
    expect((await get('/v0/x', await sign({ [claims.account]: 'a', scope: 'v0' }))).status).toBe(401);
  });
});

describe('createTokenVerifier cache', () => {
  const verifier = () => createTokenVerifier({ issuer: 'cc-suite', audience: 'cc-suite-api', jwks: { keys: [jwk] } });

  it('remembers a verified token: the second check returns the same principal without verifying again', async () => {
    const verify = verifier();
    const token = await sign({ [claims.account]: 'acc-1', scope: 'stats' });
    const first = await verify(token);
    expect(await verify(token)).toBe(first);
    // Another token is verified on its own.
    const other = await verify(await sign({ [claims.account]: 'acc-2', scope: 'stats' }));
    expect(other).not.toBe(first);
    expect(other.accountId).toBe('acc-2');
  });

  it('never caches past the expiry: a token past exp (within the clock tolerance) is verified every time', async () => {
    const verify = verifier();
    const token = await sign({ [claims.account]: 'acc-1', scope: 'stats' }, { exp: '-5s' });
    const first = await verify(token);
    expect(first.accountId).toBe('acc-1');
    expect(await verify(token)).not.toBe(first);
  });

  it('does not cache failures', async () => {
    const verify = verifier();
    await expect(verify('abc.def.ghi')).rejects.toThrow();
    await expect(verify('abc.def.ghi')).rejects.toThrow();
  });
});
describe('requireAuth hardening (issue 19 item 7)', () => {
  it('refuses two Authorization headers with 400, whichever comes first', async () => {
    const good = await sign({ [claims.account]: 'acc-1', scope: 'stats' });
    const res = await request(app)
      .get('/stats/x')
      .set('authorization', [`Bearer ${good}`, 'Bearer other'] as unknown as string);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'REQUEST.VALIDATION' });
    expect(res.body.errors[0].pointer).toBe('/headers/authorization');
    expect((await get('/stats/x', good)).status).toBe(200);
  });

  it('requires exp and refuses a lifetime beyond the cap (24 h by default)', async () => {
    const { privateKey } = await keyPair;
    const base = () =>
      new SignJWT({ [claims.account]: 'a', scope: 'stats' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k2' })
        .setIssuer('cc-suite')
        .setAudience('cc-suite-api')
        .setSubject('client-1')
        .setIssuedAt();
    const noExp = await base().sign(privateKey);
    const years = await base().setExpirationTime('5y').sign(privateKey);
    const day = await base().setExpirationTime('23h').sign(privateKey);
    const resNoExp = await get2('/stats/x', noExp);
    expect(resNoExp.status).toBe(401);
    expect(resNoExp.body.detail).toMatch(/exp/);
    const resYears = await get2('/stats/x', years);
    expect(resYears.status).toBe(401);
    expect(resYears.body.detail).toMatch(/lifetime/);
    expect((await get2('/stats/x', day)).status).toBe(200);
  });
});

const keyPair = generateKeyPair('ES256');
let app2: express.Express | undefined;
async function get2(path: string, token: string) {
  if (!app2) {
    const { publicKey } = await keyPair;
    const jwk2 = { ...(await exportJWK(publicKey)), kid: 'k2', alg: 'ES256' };
    const verify = createTokenVerifier({ issuer: 'cc-suite', audience: 'cc-suite-api', jwks: { keys: [jwk2] } });
    app2 = express();
    app2.get('/stats/x', requireAuth(verify, 'stats'), (_req, res) => {
      res.json(principalOf(res));
    });
    app2.use(problemHandler(createLogger('t', 'silent')));
  }
  return request(app2).get(path).set('authorization', `Bearer ${token}`);
}

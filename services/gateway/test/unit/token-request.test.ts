import { OAuthError, parseBasic, parseTokenRequest, parseV0TokenRequest } from '../../src/domain/token-request';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

function oauthError(fn: () => unknown): OAuthError {
  try {
    fn();
  } catch (err) {
    if (err instanceof OAuthError) return err;
    throw err;
  }
  throw new Error('expected an OAuthError');
}

describe('token request parsing', () => {
  const ok = { grant_type: 'client_credentials', client_id: 'c1', client_secret: 's1', scope: 'stats' };

  it('takes credentials from the form body or from HTTP Basic', () => {
    expect(parseTokenRequest(ok, undefined)).toEqual({
      clientId: 'c1',
      clientSecret: 's1',
      scope: 'stats',
      viaBasic: false,
    });
    expect(parseTokenRequest({ grant_type: 'client_credentials', scope: 'admin' }, basic('c2', 's:2'))).toEqual({
      clientId: 'c2',
      clientSecret: 's:2',
      scope: 'admin',
      viaBasic: true,
    });
  });

  it('form-urldecodes Basic credentials (RFC 6749 §2.3.1)', () => {
    expect(parseBasic(basic('a%3Ab', 'p%20q+r'))).toEqual({ id: 'a:b', secret: 'p q r' });
    expect(parseBasic('Bearer x')).toBeUndefined();
    expect(oauthError(() => parseBasic('Basic !!!')).error).toBe('invalid_client');
    expect(oauthError(() => parseBasic(`Basic ${Buffer.from('nocolon').toString('base64')}`)).error).toBe(
      'invalid_client',
    );
  });

  it.each([
    ['no grant_type', { ...ok, grant_type: undefined }, 'invalid_request', 400],
    ['another grant', { ...ok, grant_type: 'authorization_code' }, 'unsupported_grant_type', 400],
    ['repeated parameter', { ...ok, scope: ['stats', 'admin'] }, 'invalid_request', 400],
    ['no secret', { ...ok, client_secret: undefined }, 'invalid_client', 401],
    ['no scope', { ...ok, scope: undefined }, 'invalid_scope', 400],
    ['empty scope', { ...ok, scope: '' }, 'invalid_scope', 400],
    ['two scopes', { ...ok, scope: 'stats admin' }, 'invalid_scope', 400],
    ['unknown scope', { ...ok, scope: 'v0' }, 'invalid_scope', 400],
  ])('%s → %s', (_what, form, error, status) => {
    const err = oauthError(() => parseTokenRequest(form as Record<string, string>, undefined));
    expect({ error: err.error, status: err.status }).toEqual({ error, status });
    expect(err.body()).toEqual({ error, error_description: expect.any(String) });
  });

  it('refuses two authentication methods or a Basic user that differs from client_id', () => {
    expect(oauthError(() => parseTokenRequest(ok, basic('c1', 's1'))).error).toBe('invalid_request');
    const { client_secret: _s, ...noSecret } = ok;
    expect(oauthError(() => parseTokenRequest({ ...noSecret, client_id: 'other' }, basic('c1', 's1'))).error).toBe(
      'invalid_request',
    );
    expect(parseTokenRequest(noSecret, basic('c1', 's1')).clientId).toBe('c1');
  });

  it('v0: requires HTTP Basic, accepts an absent or client_credentials grant', () => {
    expect(parseV0TokenRequest({}, basic('acme', 'tok'))).toEqual({
      clientId: 'acme',
      clientSecret: 'tok',
      viaBasic: true,
    });
    expect(parseV0TokenRequest({ grant_type: 'client_credentials' }, basic('acme', 'tok')).clientId).toBe('acme');
    const none = oauthError(() => parseV0TokenRequest({}, undefined));
    expect({ error: none.error, status: none.status, basic: none.basic }).toEqual({
      error: 'invalid_client',
      status: 401,
      basic: true,
    });
    expect(oauthError(() => parseV0TokenRequest({ grant_type: 'password' }, basic('a', 'b'))).error).toBe(
      'unsupported_grant_type',
    );
  });
});

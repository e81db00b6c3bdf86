import type { Principal } from '@cc/kit';
import { type FastPathCandidate, fastPathCandidate, fastPathPermits, type RequestHead } from '../../src/http/fast-path';

const limits = { corsEnabled: false, jsonLimitBytes: 1024, mediaLimitBytes: 4096 };
const token = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';

/** A request head as Node parses it: lower-case header names, raw headers in pairs. */
function head(method: string, url: string, headers: Record<string, string> = {}): RequestHead {
  const all: Record<string, string> = { authorization: `Bearer ${token}`, ...headers };
  for (const k of Object.keys(all)) if (all[k] === '') delete all[k];
  return { method, url, headers: all, rawHeaders: Object.entries(all).flat() };
}

const principal = (p: Partial<Principal> = {}): Principal => ({
  accountId: 'acc',
  clientId: 'cli',
  scopes: ['stats'],
  flavour: 'api',
  ...p,
});

// Which requests skip the Express chain: only those whose every check passes; the rest keep its wording.
describe('gateway fast path: which requests it takes', () => {
  it('takes a proxied GET with one bearer token, naming the route, path, token and scope', () => {
    const c = fastPathCandidate(head('GET', '/stats/agent-activities?start=2024-05-01T00:00:00Z'), limits);
    expect(c).toMatchObject({ path: '/stats/agent-activities', token, scope: 'stats', v0: false });
    expect(c?.route.rule.target).toBe('statistics');
  });

  it('takes a JSON POST within the limit (with or without a charset)', () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/merge-patch+json']) {
      const req = head('POST', '/interactions/Invoke', { 'content-type': type, 'content-length': '100' });
      expect(fastPathCandidate(req, limits)?.scope).toBe('interactions:write');
    }
  });

  it('takes a v0 statistics call with the path account key', () => {
    const c = fastPathCandidate(head('GET', '/v0/acme/statistics/agentstates'), limits);
    expect(c).toMatchObject({ scope: 'v0', v0: true, route: { accountKey: 'acme' } });
  });

  it.each([
    ['no token', head('GET', '/stats/agent-activities', { authorization: '' })],
    ['a basic credential', head('GET', '/stats/agent-activities', { authorization: 'Basic eDp5' })],
    [
      'two Authorization headers',
      { ...head('GET', '/stats/x'), rawHeaders: ['authorization', 'a', 'Authorization', 'b'] },
    ],
    ['OPTIONS', head('OPTIONS', '/stats/agent-activities')],
    ['an unknown path (404)', head('GET', '/nowhere')],
    ['a dot segment (400)', head('GET', '/stats/../admin/accounts')],
    ['an encoded slash (400)', head('GET', '/stats/a%2Fb')],
    ['an empty segment (400)', head('GET', '/stats//agent-activities')],
    ['a documented path with another method (405)', head('DELETE', '/interactions/Invoke')],
    ['the gateway token endpoint', head('POST', '/Auth/connect/token')],
    ['the gateway admin API', head('GET', '/admin/accounts')],
    ['the event stream', head('GET', '/events/stream')],
    ['the docs', head('GET', '/docs')],
    ['a probe', head('GET', '/healthz')],
    ['an absolute-form URL', head('GET', 'http://example.test/stats/agent-activities')],
    ['a URL Express parses the slow way', head('GET', '/stats/agent-activities#x')],
    [
      'a non-JSON body (415)',
      head('POST', '/interactions/Invoke', { 'content-type': 'text/plain', 'content-length': '5' }),
    ],
    ['a body without a type (415)', head('POST', '/interactions/Invoke', { 'content-length': '5' })],
    [
      'a JSON type with odd parameters',
      head('POST', '/interactions/Invoke', { 'content-type': 'application/json; charset', 'content-length': '5' }),
    ],
    [
      'a body over the JSON limit (413)',
      head('POST', '/interactions/Invoke', { 'content-type': 'application/json', 'content-length': '1025' }),
    ],
    [
      'a media body over the media limit (413)',
      head('PUT', '/conversation-analyzer/recordings/r1', { 'content-type': 'audio/wav', 'content-length': '4097' }),
    ],
    ['a malformed Content-Length', head('POST', '/interactions/Invoke', { 'content-length': 'x' })],
  ])('hands %s to the Express chain', (_why, req) => {
    expect(fastPathCandidate(req, limits)).toBeUndefined();
  });

  it('takes a media body of any type within the media limit', () => {
    const req = head('PUT', '/conversation-analyzer/recordings/r1', {
      'content-type': 'audio/wav',
      'content-length': '4096',
    });
    expect(fastPathCandidate(req, limits)?.route.rule.mediaBody).toBe(true);
  });

  it('hands requests with an Origin to the Express chain only when CORS is configured', () => {
    const req = head('GET', '/stats/agent-activities', { origin: 'https://console.example' });
    expect(fastPathCandidate(req, limits)).toBeDefined();
    expect(fastPathCandidate(req, { ...limits, corsEnabled: true })).toBeUndefined();
  });
});

describe('gateway fast path: which principals it serves', () => {
  const stats = fastPathCandidate(head('GET', '/stats/agent-activities'), limits) as FastPathCandidate;
  const v0 = fastPathCandidate(head('GET', '/v0/acme/statistics/agentstates'), limits) as FastPathCandidate;

  it('serves a token with the route scope', () => {
    expect(fastPathPermits(stats, principal())).toBe(true);
  });

  it('hands on a token without the scope (403) or of the v0 flavour (401)', () => {
    expect(fastPathPermits(stats, principal({ scopes: ['admin'] }))).toBe(false);
    expect(fastPathPermits(stats, principal({ flavour: 'v0', scopes: ['stats', 'v0'] }))).toBe(false);
  });

  it('serves a v0 token only on its own account key', () => {
    expect(fastPathPermits(v0, principal({ flavour: 'v0', scopes: ['v0'], clientId: 'acme' }))).toBe(true);
    expect(fastPathPermits(v0, principal({ flavour: 'v0', scopes: ['v0'], clientId: 'other' }))).toBe(false);
    expect(fastPathPermits(v0, principal({ scopes: ['v0'], clientId: 'acme' }))).toBe(false);
  });
});

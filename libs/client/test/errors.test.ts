import { ApiError, collectPages, createClient, ok, ProblemError, pollWindow, ScopeError } from '../src/index';
import { type Seen, send, startServer, type TestServer } from './helpers';

const validation = {
  type: 'https://cc-suite.dev/problems/request-validation',
  title: 'Request is invalid',
  status: 400,
  detail: '2 violation(s) of the request rules',
  instance: '/admin/agents',
  code: 'REQUEST.VALIDATION',
  errors: [
    { pointer: '/username', message: 'username is required' },
    { pointer: '/capacity/calls', message: 'calls must be >= 0' },
  ],
};

describe('createClient: problem+json as typed errors (real HTTP server)', () => {
  let server: TestServer;
  let issued = 0;
  let answer: (req: Seen, res: Parameters<typeof send>[0]) => void;

  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.url === '/Auth/connect/token') {
        issued += 1;
        const scope = new URLSearchParams(req.body).get('scope');
        return send(res, 200, { access_token: `t${issued}`, token_type: 'Bearer', expires_in: 7200, scope });
      }
      answer(req, res);
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.seen.length = 0;
  });

  const client = () => createClient({ baseUrl: server.url, clientId: 'c', clientSecret: 's' });
  const agent = { username: '', capacity: { calls: -1, semiLive: 0, nonLive: 0 } };

  it('throws a ProblemError with status, code, type, detail, instance and the field pointers', async () => {
    answer = (_req, res) => send(res, 400, validation, 'application/problem+json');
    const err = await client()
      .admin.POST('/admin/agents', { body: agent })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProblemError);
    expect(err).toBeInstanceOf(ApiError);
    const p = err as ProblemError;
    expect(p).toMatchObject({
      status: 400,
      code: 'REQUEST.VALIDATION',
      type: validation.type,
      title: validation.title,
      detail: validation.detail,
      instance: '/admin/agents',
      requestId: 'req-1',
      errors: validation.errors,
    });
    expect(p.pointers).toEqual(['/username', '/capacity/calls']);
    expect(p.message).toBe('400 REQUEST.VALIDATION: 2 violation(s) of the request rules');
  });

  it('carries Retry-After of a 429 and validVersions of a 406', async () => {
    answer = (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': '7' });
      res.end(JSON.stringify({ ...validation, status: 429, code: 'REQUEST.RATE_LIMITED', errors: undefined }));
    };
    await expect(client().admin.GET('/admin/agents', {})).rejects.toMatchObject({
      status: 429,
      code: 'REQUEST.RATE_LIMITED',
      retryAfter: 7,
      errors: [],
    });
    answer = (_req, res) =>
      send(
        res,
        406,
        { ...validation, status: 406, code: 'REQUEST.NOT_ACCEPTABLE', validVersions: [3] },
        'application/problem+json',
      );
    await expect(client().admin.GET('/admin/agents', {})).rejects.toMatchObject({ validVersions: [3] });
  });

  it('drops a token the API answered 401 to, so the next call fetches a new one', async () => {
    const cc = client();
    let rejectNext = true;
    answer = (req, res) => {
      if (rejectNext) {
        rejectNext = false;
        return send(res, 401, { ...validation, status: 401, code: 'AUTH.UNAUTHENTICATED' }, 'application/problem+json');
      }
      send(res, 200, {
        meta: { page: 1, count: 0, pageCount: 0, totalCount: 0 },
        items: [],
        auth: req.headers.authorization,
      });
    };
    await expect(cc.admin.GET('/admin/agents', {})).rejects.toMatchObject({
      status: 401,
      code: 'AUTH.UNAUTHENTICATED',
    });
    const first = server.seen.find((s) => s.url === '/admin/agents')?.headers.authorization;
    await cc.admin.GET('/admin/agents', {});
    const second = server.seen.filter((s) => s.url === '/admin/agents')[1]?.headers.authorization;
    expect(first).toMatch(/^Bearer t\d+$/);
    expect(second).toMatch(/^Bearer t\d+$/);
    expect(second).not.toBe(first);
    expect(server.seen.filter((s) => s.url === '/Auth/connect/token')).toHaveLength(2);
  });

  it('a 403 keeps the token (the scope, not the token, is wrong)', async () => {
    const cc = client();
    answer = (_req, res) =>
      send(res, 403, { ...validation, status: 403, code: 'AUTH.FORBIDDEN' }, 'application/problem+json');
    await expect(cc.admin.GET('/admin/agents', {})).rejects.toMatchObject({ status: 403, code: 'AUTH.FORBIDDEN' });
    await expect(cc.admin.GET('/admin/agents', {})).rejects.toMatchObject({ status: 403 });
    expect(server.seen.filter((s) => s.url === '/Auth/connect/token')).toHaveLength(1);
  });

  it('a body that is not a problem is an ApiError with the status and text', async () => {
    answer = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('upstream down');
    };
    const err = await client()
      .admin.GET('/admin/agents', {})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).not.toBeInstanceOf(ProblemError);
    expect(err).toMatchObject({ status: 502, body: 'upstream down' });
  });

  it('refuses an operation whose scope the client was not given, before sending anything', async () => {
    const cc = createClient({ baseUrl: server.url, clientId: 'c', clientSecret: 's', scopes: ['stats'] });
    const err = await cc.admin.GET('/admin/agents', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScopeError);
    expect(err).toMatchObject({ operation: 'GET /admin/agents', required: ['admin'] });
    expect(server.seen).toHaveLength(0);
  });

  it('ok() returns the success body', async () => {
    answer = (_req, res) =>
      send(res, 200, { meta: { page: 1, count: 1, pageCount: 1, totalCount: 1 }, items: [{ username: 'ann' }] });
    const body = await ok(client().admin.GET('/admin/agents', {}));
    expect(body.meta.totalCount).toBe(1);
  });

  it('collectPages follows meta.pageCount and pollWindow pins the window to the first upTo', async () => {
    const all = Array.from({ length: 5 }, (_, i) => ({ id: `i${i}` }));
    answer = (req, res) => {
      const q = new URL(req.url, 'http://x').searchParams;
      const page = Number(q.get('page') ?? 1);
      const limit = Number(q.get('limit') ?? 100);
      const items = all.slice((page - 1) * limit, page * limit);
      const pageCount = Math.ceil(all.length / limit);
      send(res, 200, {
        meta: { page, count: items.length, pageCount, totalCount: all.length },
        items,
        upTo: q.get('end') ?? '2026-01-01T10:00:00.000Z',
      });
    };
    const cc = client();
    const collected = await collectPages((page) =>
      ok(
        cc.statistics.GET('/stats/interactions', {
          params: { query: { start: '2026-01-01T00:00:00Z', page, limit: 2 } },
        }),
      ),
    );
    expect(collected.items.map((i) => (i as { id?: string }).id)).toEqual(['i0', 'i1', 'i2', 'i3', 'i4']);
    expect(collected).toMatchObject({ upTo: '2026-01-01T10:00:00.000Z', totalCount: 5 });
    server.seen.length = 0;
    const polled = await pollWindow('2026-01-01T00:00:00Z', ({ start, end, page }) =>
      ok(cc.statistics.GET('/stats/interactions', { params: { query: { start, end, page, limit: 2 } } })),
    );
    expect(polled.items).toHaveLength(5);
    expect(polled.next).toBe('2026-01-01T10:00:00.000Z');
    const ends = server.seen
      .filter((s) => s.url.startsWith('/stats/'))
      .map((s) => new URL(s.url, 'http://x').searchParams.get('end'));
    expect(ends).toEqual([null, '2026-01-01T10:00:00.000Z', '2026-01-01T10:00:00.000Z']);
  });
});

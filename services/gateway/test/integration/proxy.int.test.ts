import { request as httpRequest } from 'node:http';
import { eventually } from '@cc/testing';
import { demo, freePort, getToken, type Seen, startEchoUpstream, startGateway, type TestGateway } from './helpers';

/** Sends a chunked body (no content-length) in pieces and resolves with the status and body of the answer. */
function sendChunked(url: string, token: string, chunks: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', (err) => {
      // The gateway may close the connection while we are still sending an oversized body.
      if ((err as NodeJS.ErrnoException).code !== 'EPIPE' && (err as NodeJS.ErrnoException).code !== 'ECONNRESET')
        reject(err);
    });
    let i = 0;
    const next = () => {
      if (i < chunks.length) {
        req.write(chunks[i++], () => setImmediate(next));
      } else req.end();
    };
    next();
  });
}

// The proxy through the real gateway to real HTTP upstreams: routing, headers, limits and upstream failures.
describe('gateway proxy', () => {
  let gw: TestGateway;
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;
  let stats: string;
  let invoke: string;
  let admin: string;

  beforeAll(async () => {
    upstream = await startEchoUpstream(() => `${gw.url}/.well-known/jwks.json`);
    const closed = await freePort();
    gw = await startGateway({
      UPSTREAM_ROUTING_URL: upstream.url,
      UPSTREAM_PROVIDER_REGISTRY_URL: upstream.url,
      UPSTREAM_NOTIFIER_URL: upstream.url,
      UPSTREAM_STATISTICS_URL: upstream.url,
      UPSTREAM_SUMMARIES_URL: `http://127.0.0.1:${closed}`,
      UPSTREAM_ANALYSIS_URL: 'http://upstream.invalid:8085',
      PROXY_TIMEOUT_MS: '1500',
      GATEWAY_BODY_LIMIT: '1kb',
      CORS_ORIGINS: 'https://app.example, https://other.example',
    });
    [stats, invoke, admin] = await Promise.all([
      getToken(gw.url, demo.clientId, demo.secret, 'stats'),
      getToken(gw.url, demo.clientId, demo.secret, 'interactions:write'),
      getToken(gw.url, demo.clientId, demo.secret, 'admin'),
    ]);
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  const lastSeen = () => upstream.seen.at(-1) as Seen;

  async function problem(res: Response, status: number, code: string) {
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(body).toMatchObject({ status, code, detail: expect.any(String) });
    expect(res.headers.get('x-request-id')).toBeTruthy();
    return body;
  }

  it('routes each base path to its owning service, keeping path and query', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/stats/interactions?start=2024-05-01T00:00:00Z&page=2', stats],
      ['POST', '/interactions/Invoke', invoke],
      ['POST', '/interactions/Register', invoke],
      ['GET', '/admin/deliveries?state=dead', admin],
      ['POST', '/admin/providers/acme/deliveries/replay', admin],
      ['GET', '/admin/providers/acme', admin],
      ['GET', '/admin/interactions/6f1c/trace', admin],
    ];
    for (const [method, path, token] of cases) {
      const res = await fetch(`${gw.url}${path}`, {
        method,
        headers: { ...bearer(token), ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        ...(method === 'POST' ? { body: '{"since":"2024-05-01T00:00:00Z"}' } : {}),
      });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(lastSeen()).toMatchObject({ method, url: path });
    }
    expect(lastSeen().headers['x-forwarded-for']).toBeTruthy();
  });

  it('streams the request body and the response body through', async () => {
    const body = JSON.stringify({ requests: [{ route: 'Support', type: 'live' }] });
    const res = await fetch(`${gw.url}/interactions/invoke`, {
      method: 'POST',
      headers: { ...bearer(invoke), 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    expect(lastSeen()).toMatchObject({ bodyBytes: Buffer.byteLength(body), body });
    const streamed = await fetch(`${gw.url}/stats/stream`, { headers: bearer(stats) });
    expect(streamed.status).toBe(200);
    expect((await streamed.text()).length).toBe(100 * 1001);
  });

  it('passes the caller x-request-id and a child traceparent of the caller trace upstream', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${gw.url}/stats/agent-activities`, {
      headers: { ...bearer(stats), 'x-request-id': 'caller-42', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('caller-42');
    expect(lastSeen().headers['x-request-id']).toBe('caller-42');
    expect(lastSeen().headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(lastSeen().headers.traceparent).not.toContain('00f067aa0ba902b7');
    const fresh = await fetch(`${gw.url}/stats/agent-activities`, { headers: bearer(stats) });
    expect(lastSeen().headers['x-request-id']).toBe(fresh.headers.get('x-request-id'));
  });

  it('logs one access line per proxied request (its id, trace, censored query) and counts it under its route', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const res = await fetch(`${gw.url}/stats/agent-activities?start=2024-05-01T00:00:00Z&api_key=hunter2`, {
      headers: { ...bearer(stats), 'x-request-id': 'access-log-1', traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    });
    expect(res.status).toBe(200);
    const lineOf = () =>
      gw.logs.lines
        .map((l) => JSON.parse(l) as Record<string, unknown> & { req?: { id?: string } })
        .filter((l) => l.req?.id === 'access-log-1');
    await eventually(async () => lineOf().length > 0, { timeoutMs: 5000, what: 'the access-log line' });
    const lines = lineOf();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      msg: 'request completed',
      req: { method: 'GET', url: '/stats/agent-activities?start=2024-05-01T00:00:00Z&api_key=[redacted]' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
      trace_id: traceId,
    });
    expect(gw.logs.text()).not.toContain('hunter2');
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(
      /http_request_duration_seconds_count\{[^}]*route="statistics"[^}]*status="200"[^}]*\} [1-9]/,
    );
  });

  it('answers 404 for paths no service owns, without calling any', async () => {
    const before = upstream.seen.length;
    const res = await fetch(`${gw.url}/nowhere/at/all`, { headers: bearer(stats) });
    await problem(res, 404, 'REQUEST.NOT_FOUND');
    expect((await fetch(`${gw.url}/interactions/Invoke/extra`, { method: 'POST' })).status).toBe(404);
    expect(upstream.seen.length).toBe(before);
  });

  it('answers 400 for paths with dot segments or encoded slashes', async () => {
    // node:http with a path option sends it as written (a URL string would have its dot segments resolved).
    const raw = (path: string) =>
      new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port: new URL(gw.url).port, path, headers: bearer(stats) }, (res) => {
          let text = '';
          res.on('data', (c) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        })
          .on('error', reject)
          .end();
      });
    const before = upstream.seen.length;
    for (const path of ['/stats/%2e%2e/admin/accounts', '/stats/../admin/accounts', '/stats/a%2Fb', '/stats//x']) {
      const res = await raw(path);
      expect({ path, status: res.status, code: res.body.code }).toEqual({
        path,
        status: 400,
        code: 'REQUEST.VALIDATION',
      });
    }
    expect(upstream.seen.length).toBe(before);
  });

  it('answers 405 with Allow for a documented path called with another method, before authentication', async () => {
    const res = await fetch(`${gw.url}/interactions/Invoke`, { method: 'GET' });
    expect(res.headers.get('allow')).toBe('POST');
    await problem(res, 405, 'REQUEST.METHOD_NOT_ALLOWED');
    const del = await fetch(`${gw.url}/stats/agent-activities`, { method: 'DELETE', headers: bearer(stats) });
    expect(del.headers.get('allow')).toBe('GET, HEAD');
    await problem(del, 405, 'REQUEST.METHOD_NOT_ALLOWED');
    const token = await fetch(`${gw.url}/Auth/connect/token`);
    expect(token.status).toBe(405);
    // OPTIONS (not a CORS preflight) is answered by the gateway, never passed on unauthenticated.
    const before = upstream.seen.length;
    const options = await fetch(`${gw.url}/admin/routes/Support`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('DELETE, GET, HEAD, PUT, OPTIONS');
    expect(upstream.seen.length).toBe(before);
  });

  it('answers 415 for a non-JSON body, without calling the service', async () => {
    const before = upstream.seen.length;
    const res = await fetch(`${gw.url}/interactions/Invoke`, {
      method: 'POST',
      headers: { ...bearer(invoke), 'content-type': 'text/plain' },
      body: 'hello',
    });
    await problem(res, 415, 'REQUEST.UNSUPPORTED_MEDIA_TYPE');
    expect(upstream.seen.length).toBe(before);
  });

  it('answers 413 for a declared oversized body, without calling the service', async () => {
    const before = upstream.seen.length;
    const res = await fetch(`${gw.url}/interactions/Invoke`, {
      method: 'POST',
      headers: { ...bearer(invoke), 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(2000) }),
    });
    const body = await problem(res, 413, 'REQUEST.TOO_LARGE');
    expect(body.limit).toBe(1024);
    expect(upstream.seen.length).toBe(before);
  });

  it('answers 413 for a chunked body that grows past the limit while streaming; smaller ones pass', async () => {
    const big = await sendChunked(`${gw.url}/interactions/Invoke`, invoke, [
      '{"a":"',
      'x'.repeat(600),
      'y'.repeat(600),
      '"}',
    ]);
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ code: 'REQUEST.TOO_LARGE', status: 413 });
    // Whatever reached the service before the limit was cut off and never completed.
    expect(upstream.seen.filter((s) => s.bodyBytes > 1024)).toEqual([]);

    const small = await sendChunked(`${gw.url}/interactions/Invoke`, invoke, ['{"a":"', 'x'.repeat(300), '"}']);
    expect(small.status).toBe(200);
    expect(JSON.parse(small.body)).toMatchObject({ bodyBytes: 308 });
  });

  it('answers 502 when the service refuses the connection', async () => {
    const res = await fetch(`${gw.url}/stats/wfm/agent-summaries`, { headers: bearer(stats) });
    const body = await problem(res, 502, 'DEPENDENCY.BAD_GATEWAY');
    expect(body.detail).toMatch(/summaries/);
  });

  it('answers 503 when the service cannot be reached', async () => {
    const content = await getToken(gw.url, demo.clientId, demo.secret, 'interaction-content:read');
    const res = await fetch(`${gw.url}/conversation-analyzer/interactions?calls=a`, { headers: bearer(content) });
    const body = await problem(res, 503, 'DEPENDENCY.UNAVAILABLE');
    expect(body.detail).toMatch(/analysis/);
  });

  it('answers 504 when the service does not answer within the proxy timeout', async () => {
    const started = Date.now();
    const res = await fetch(`${gw.url}/stats/slow`, { headers: bearer(stats) });
    const body = await problem(res, 504, 'DEPENDENCY.TIMEOUT');
    expect(body.detail).toMatch(/statistics/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
  });

  it('answers CORS preflights for configured origins only, and exposes the rate-limit headers', async () => {
    const pre = await fetch(`${gw.url}/stats/agent-activities`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(pre.headers.get('access-control-allow-headers')).toBe('authorization');
    const simple = await fetch(`${gw.url}/stats/agent-activities`, {
      headers: { ...bearer(stats), origin: 'https://other.example' },
    });
    expect(simple.headers.get('access-control-allow-origin')).toBe('https://other.example');
    expect(simple.headers.get('access-control-expose-headers')).toMatch(/RateLimit-Remaining/);
    const stranger = await fetch(`${gw.url}/stats/agent-activities`, {
      headers: { ...bearer(stats), origin: 'https://evil.example' },
    });
    expect(stranger.status).toBe(200);
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves the contract documents at /docs as HTML and raw JSON, without scripts', async () => {
    const index = await fetch(`${gw.url}/docs`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/text\/html/);
    expect(index.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await index.text();
    for (const name of ['interactions', 'statistics', 'admin', 'auth', 'v0-statistics', 'asyncapi']) {
      expect(html).toContain(`/docs/${name}.json`);
    }
    expect(html).not.toMatch(/<script|https?:\/\/(?!cc-suite)/i);
    const page = await (await fetch(`${gw.url}/docs/interactions`)).text();
    expect(page).toContain('/interactions/Invoke');
    const events = await (await fetch(`${gw.url}/docs/asyncapi`)).text();
    expect(events).toContain('cc.account.v1');
    const raw = await fetch(`${gw.url}/docs/admin.json`);
    expect(raw.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await raw.json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
    expect((await fetch(`${gw.url}/docs/nope.json`)).status).toBe(404);
    expect((await fetch(`${gw.url}/docs`, { method: 'POST' })).status).toBe(405);
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import express from 'express';
import request from 'supertest';
import { CapturedLogs } from '../../testing/src/logs';
import { AppError, defineErrorCodes } from '../src/errors';
import { Readiness } from '../src/health';
import { answerClientErrors, createHttpApp } from '../src/http/app';
import { createLogger } from '../src/logger';
import { createMetrics } from '../src/metrics';

const serviceError = defineErrorCodes({ 'THING.NOT_ALLOWED': { status: 400, title: 'Not allowed' } });

function build(readiness = new Readiness(), logs = new CapturedLogs()) {
  const app = createHttpApp({
    logger: createLogger('test', 'info', logs),
    metrics: createMetrics('test'),
    readiness,
    bodyLimit: '1kb',
    routes: (a) => {
      const r = express.Router();
      r.post('/echo', (req, res) => {
        res.status(201).json(req.body);
      });
      r.get('/boom', () => {
        throw new Error('database password is hunter2');
      });
      r.get('/things/:id', (req, res) => {
        res.json({ id: req.params.id });
      });
      r.get('/coded', () => {
        throw new AppError('REQUEST.CONFLICT', 'already there');
      });
      r.get('/service-coded', () => {
        throw serviceError('THING.NOT_ALLOWED', 'not this one', [{ pointer: '/thing', message: 'not this one' }]);
      });
      a.use(r);
    },
  });
  return { app, logs };
}

describe('createHttpApp', () => {
  it('echoes a well-formed x-request-id and makes one up otherwise', async () => {
    const { app } = build();
    const a = await request(app).get('/healthz').set('x-request-id', 'abc-123');
    expect(a.headers['x-request-id']).toBe('abc-123');
    const b = await request(app).get('/healthz').set('x-request-id', 'bad id with spaces');
    expect(b.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers a service's coded 400 with its own code (the error's status is not mistaken for a router error)", async () => {
    const res = await request(build().app).get('/service-coded');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'THING.NOT_ALLOWED',
      title: 'Not allowed',
      errors: [{ pointer: '/thing' }],
    });
  });

  it('answers unknown paths with a 404 problem', async () => {
    const res = await request(app404()).get('/nope');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, code: 'REQUEST.NOT_FOUND', instance: '/nope' });
  });

  it('answers malformed JSON with 400, a wrong content type with 415 and an oversized body with 413', async () => {
    const { app } = build();
    const bad = await request(app).post('/echo').set('content-type', 'application/json').send('{"a":');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('REQUEST.MALFORMED_JSON');
    const text = await request(app).post('/echo').set('content-type', 'text/plain').send('hello');
    expect(text.status).toBe(415);
    const big = await request(app)
      .post('/echo')
      .send({ a: 'x'.repeat(2000) });
    expect(big.status).toBe(413);
    const ok = await request(app).post('/echo').send({ a: 1 });
    expect(ok.status).toBe(201);
  });

  it('answers an undecodable path parameter with 400, not 500', async () => {
    const { app } = build();
    const res = await request(app).get('/things/%ED%A0%80');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('REQUEST.VALIDATION');
    expect((await request(app).get('/things/ok')).status).toBe(200);
  });

  it('maps coded errors by code and hides unexpected ones behind a bare 500', async () => {
    const { app, logs } = build();
    expect((await request(app).get('/coded')).status).toBe(409);
    const res = await request(app).get('/boom');
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
    expect(logs.text()).toContain('request failed');
  });

  it('reports readiness from every check, and 503 while draining', async () => {
    const readiness = new Readiness();
    let storeUp = true;
    readiness.add('store', async () => {
      if (!storeUp) throw new Error('down');
    });
    const { app } = build(readiness);
    expect((await request(app).get('/readyz')).status).toBe(200);
    storeUp = false;
    const down = await request(app).get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body.checks.store).toMatch(/failing: down/);
    storeUp = true;
    readiness.drain();
    expect((await request(app).get('/readyz')).status).toBe(503);
  });

  it('exposes Prometheus metrics including the HTTP histogram', async () => {
    const { app } = build();
    await request(app).get('/healthz');
    await request(app).post('/echo').send({});
    const res = await request(app).get('/metrics');
    expect(res.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/echo"[^}]*status="201"/);
  });

  it('never logs the authorization header', async () => {
    const { app, logs } = build();
    await request(app).post('/echo').set('authorization', 'Bearer very-secret-token').send({});
    expect(logs.text()).toContain('"url":"/echo"');
    expect(logs.text()).not.toContain('very-secret-token');
  });
});

function app404() {
  return build().app;
}

describe('createHttpApp hardening (issue 19)', () => {
  it('item 3: censors credential-like query parameters in the access log', async () => {
    const { app, logs } = build();
    await request(app).get('/things/1?authorization=S1&key=S2&code=S3&sig=S4&token=S5&secret=S6&password=S7&x=keep');
    expect(logs.text()).toContain('x=keep');
    for (const s of ['S1', 'S2', 'S3', 'S4', 'S5', 'S6', 'S7']) expect(logs.text()).not.toContain(`=${s}`);
  });

  it('item 8: refuses a JSON body that is not valid UTF-8 with 400, naming the body', async () => {
    const { app } = build();
    const body = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    // superagent would JSON-encode a Buffer: send the bytes as they are.
    const raw = (b: Buffer) =>
      request(app)
        .post('/echo')
        .set('content-type', 'application/json')
        .serialize(() => b as never)
        .send(b as never);
    const res = await raw(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'REQUEST.MALFORMED_JSON' });
    expect(res.body.detail).toMatch(/UTF-8/);
    const ok = await raw(Buffer.from('{"a":"é€😀"}'));
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ a: 'é€😀' });
  });

  it('item 5: answers oversized request heads (64 KB token, 60 KB URL, 10,000 parameters) with a 431 problem', async () => {
    const { app } = build();
    const server = http.createServer(app);
    answerClientErrors(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const heads = [
        `GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(64 * 1024)}\r\n\r\n`,
        `GET /healthz?q=${'b'.repeat(60 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        `GET /healthz?${Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join('&')} HTTP/1.1\r\nHost: x\r\n\r\n`,
      ];
      for (const head of heads) {
        const raw = await rawRequest(port, head);
        expect(raw).toMatch(/^HTTP\/1\.1 431 /);
        expect(raw).toMatch(/content-type: application\/problem\+json/i);
        const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
        expect(body).toMatchObject({ status: 431, code: 'REQUEST.HEADERS_TOO_LARGE' });
      }
      const bad = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n');
      expect(bad).toMatch(/^HTTP\/1\.1 400 /);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', (err) => (chunks.length ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(err)));
    socket.write(head);
  });
}

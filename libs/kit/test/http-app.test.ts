import express from 'express';
import request from 'supertest';
import { CapturedLogs } from '../../testing/src/logs';
import { AppError } from '../src/errors';
import { Readiness } from '../src/health';
import { createHttpApp } from '../src/http/app';
import { createLogger } from '../src/logger';
import { createMetrics } from '../src/metrics';

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

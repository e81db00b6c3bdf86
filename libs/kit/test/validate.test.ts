import {
  agentSummariesQuery,
  analysisParams,
  analysisQuery,
  invocation,
  invokeDispatchExample,
  providerSettings,
} from '@cc/contracts';
import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import { toProblem } from '../src/errors';
import { validateRequest } from '../src/http/validate';

// A minimal app: JSON parsing, the middleware under test, handlers echoing what they received, a tiny problem handler.
function build() {
  const app = express();
  app.set('query parser', 'simple');
  app.use(express.json());
  app.post('/interactions/Invoke', validateRequest({ body: invocation }), (req, res) => {
    res.status(202).json({ received: req.body });
  });
  app.post('/interactions/Register', validateRequest({ body: providerSettings }), (req, res) => {
    res.status(201).json(req.body);
  });
  app.get('/stats/wfm/agent-summaries', validateRequest({ query: agentSummariesQuery }), (req, res) => {
    res.json({ query: req.query });
  });
  app.get(
    '/conversation-analyzer/interactions/:guid',
    validateRequest({ params: analysisParams, query: analysisQuery }),
    (req, res) => {
      res.json({ params: req.params, query: req.query });
    },
  );
  const problems: ErrorRequestHandler = (err, req, res, _next) => {
    const problem = toProblem(err, req.originalUrl);
    res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
  };
  app.use(problems);
  return app;
}

describe('validateRequest', () => {
  const app = build();

  it('passes a valid body on, with schema defaults applied', async () => {
    const res = await request(app).post('/interactions/Invoke').send(invokeDispatchExample).expect(202);
    expect(res.body.received).toEqual(invokeDispatchExample);
    const minimal = await request(app)
      .post('/interactions/Invoke')
      .send({ requests: [{ route: 'Support' }] })
      .expect(202);
    expect(minimal.body.received.requests[0].action).toBe('dispatch');
  });

  it('answers 400 problem+json with one pointer per violation for a body breaking several rules', async () => {
    const res = await request(app)
      .post('/interactions/Invoke')
      .send({
        provider: 'AcmeCRM',
        requests: [
          { action: 'release' },
          { route: 'x', linkeddata: [{ type: 'clid', value: 'x'.repeat(51) }] },
          {
            route: 'x',
            requestId: 'a',
            requestid: 'b',
            routingdata: { skills: [{ name: 's', expiryafter: 2678400 }] },
          },
          {},
        ],
        extra: true,
      })
      .expect(400)
      .expect('content-type', /application\/problem\+json/);
    expect(res.body).toMatchObject({
      status: 400,
      code: 'REQUEST.VALIDATION',
      detail: '6 violation(s) of the request rules',
    });
    expect(res.body.errors).toEqual([
      { pointer: '/extra', message: 'extra is not allowed (allowed: provider, requests)' },
      { pointer: '/requests/0/externalId', message: 'externalId is required when action is release' },
      { pointer: '/requests/1/linkeddata/0/value', message: 'value must be at most 50 characters' },
      { pointer: '/requests/2/routingdata/skills/0/expiryafter', message: 'expiryafter must be at most 2678399' },
      { pointer: '/requests/2/requestid', message: 'requestid must not be given together with requestId' },
      { pointer: '/requests/3/route', message: 'route is required when action is dispatch' },
    ]);
  });

  it('validates a missing body as an empty object', async () => {
    const res = await request(app).post('/interactions/Register').expect(400);
    expect(res.body.errors).toEqual([
      { pointer: '/provider', message: 'provider is required' },
      { pointer: '/agentactionspermitted', message: 'agentactionspermitted is required' },
    ]);
  });

  it('coerces and defaults the query, pointing query violations at /query/<name>', async () => {
    const ok = await request(app)
      .get('/stats/wfm/agent-summaries?start=2024-05-01T08:00:00Z&cadence=15&limit=10')
      .expect(200);
    expect(ok.body.query).toEqual({ start: '2024-05-01T08:00:00Z', cadence: 15, limit: 10, page: 1 });
    const bad = await request(app).get('/stats/wfm/agent-summaries?cadence=30&limit=9000&sort=asc').expect(400);
    expect(bad.body.errors).toEqual([
      { pointer: '/query/start', message: 'start is required' },
      {
        pointer: '/query/sort',
        message: 'sort is not allowed (allowed: start, end, cadence, agentId, revisedSince, page, limit)',
      },
      { pointer: '/query/cadence', message: 'cadence must be 15' },
      { pointer: '/query/limit', message: 'limit must be at most 5000' },
    ]);
  });

  it('validates path parameters and the query together, pointing at /params/<name>', async () => {
    const guid = '3f2b8c1e-9d4a-4c6b-8e2f-1a7d5c9b0e34';
    const ok = await request(app).get(`/conversation-analyzer/interactions/${guid}?transcript=true`).expect(200);
    expect(ok.body).toEqual({ params: { guid }, query: { transcript: true } });
    const bad = await request(app).get('/conversation-analyzer/interactions/42?transcript=maybe').expect(400);
    expect(bad.body.errors).toEqual([
      { pointer: '/params/guid', message: 'guid must be a GUID such as 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' },
      { pointer: '/query/transcript', message: 'transcript must be a boolean' },
    ]);
  });
});

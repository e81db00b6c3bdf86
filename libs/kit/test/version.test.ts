import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import { toProblem } from '../src/errors';
import { negotiate, negotiateVersion } from '../src/http/version';

function build() {
  const app = express();
  app.get('/analysis', negotiateVersion({ supported: [1, 2, 3], default: 3 }), (_req, res) => {
    res.json({ version: res.locals.apiVersion, mediaType: res.locals.apiMediaType });
  });
  const problems: ErrorRequestHandler = (err, req, res, _next) => {
    const problem = toProblem(err, req.originalUrl);
    res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
  };
  app.use(problems);
  return app;
}

describe('negotiateVersion', () => {
  const app = build();
  const get = (accept?: string) => {
    const req = request(app).get('/analysis');
    return accept === undefined ? req : req.set('Accept', accept);
  };

  it.each([
    ['application/vnd.newvoicemedia.v1+json', 1, 'application/vnd.newvoicemedia.v1+json'],
    ['application/vnd.newvoicemedia.v2+json', 2, 'application/vnd.newvoicemedia.v2+json'],
    ['application/vnd.cc-suite.v1+json', 1, 'application/vnd.cc-suite.v1+json'],
    ['Application/VND.CC-Suite.V2+JSON', 2, 'application/vnd.cc-suite.v2+json'],
    ['application/json', 3, 'application/json'],
    ['application/json; version=2', 2, 'application/json'],
    ['*/*', 3, 'application/json'],
    ['application/*', 3, 'application/json'],
    [
      'text/html, application/vnd.newvoicemedia.v4+json;q=0.9, application/vnd.newvoicemedia.v1+json;q=0.5',
      1,
      'application/vnd.newvoicemedia.v1+json',
    ],
    ['application/json;q=0.5, application/vnd.cc-suite.v2+json', 2, 'application/vnd.cc-suite.v2+json'],
    ['*/*, application/vnd.cc-suite.v1+json', 1, 'application/vnd.cc-suite.v1+json'],
  ])('Accept %s selects v%d', async (accept, version, mediaType) => {
    const res = await get(accept).expect(200);
    expect(res.body).toEqual({ version, mediaType });
    expect(res.headers['content-type']).toBe(`${mediaType}; charset=utf-8`);
    expect(res.headers.vary).toMatch(/Accept/);
  });

  it('gives the default version without an Accept header', async () => {
    const res = await request(app).get('/analysis').unset('Accept').expect(200);
    expect(res.body).toEqual({ version: 3, mediaType: 'application/json' });
  });

  it('refuses an unsupported version with 406 problem+json listing the valid versions', async () => {
    const res = await get('application/vnd.newvoicemedia.v4+json')
      .expect(406)
      .expect('content-type', /application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 406, code: 'REQUEST.NOT_ACCEPTABLE', validVersions: [1, 2, 3] });
    expect(res.body.detail).toMatch(/^Version 4 of this API is not available; valid versions: 1, 2, 3/);
  });

  it('serves the default for an Accept naming no version (the contract allows any string), refuses a version refused with q=0', async () => {
    // Issue 19 item 6: `text/html` or an arbitrary string was a 406 although the contract documents Accept as any string.
    for (const accept of ['text/html', 'x', '\u00e9;;;', 'application/xml;q=0.5']) {
      const res = await get(accept).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
    const refused = await get('application/vnd.cc-suite.v2+json;q=0').expect(406);
    expect(refused.body.validVersions).toEqual([1, 2, 3]);
  });

  it('refuses a configuration whose default is not supported', () => {
    expect(() => negotiateVersion({ supported: [1, 2], default: 3 })).toThrow(/default version 3/);
  });

  it('negotiates without express too', () => {
    expect(negotiate(undefined, { supported: [1], default: 1 })).toEqual({
      ok: true,
      version: 1,
      mediaType: 'application/json',
    });
    expect(negotiate('application/json; version=9', { supported: [2], default: 2 })).toEqual({
      ok: false,
      requested: [9],
      ranges: ['application/json'],
    });
  });
});

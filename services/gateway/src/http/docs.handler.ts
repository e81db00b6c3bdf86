import { documentJson, documentsAsJson, listDocuments } from '@cc/contracts';
import { AppError } from '@cc/kit';
import { Router } from 'express';
import { renderAsyncApi, renderIndex, renderOpenApi } from '../domain/docs-page';

// Self-contained pages: no scripts at all, inline styles only, nothing fetched from elsewhere.
const csp =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `GET /docs` (index), `/docs/<name>` (a document rendered as HTML) and `/docs/<name>.json` (raw). */
export function docsRoutes(): Router {
  const r = Router();
  const documents = documentsAsJson();
  const entries = listDocuments();
  const pages = new Map<string, string>();
  for (const e of entries) {
    const doc = documents[e.name] as Record<string, unknown>;
    pages.set(e.name, e.kind === 'asyncapi' ? renderAsyncApi(e.name, doc) : renderOpenApi(e.name, doc));
  }
  const index = renderIndex(entries);

  r.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', csp);
    res.type('html').send(index);
  });
  r.get('/docs/:name', (req, res) => {
    const name = String(req.params.name);
    if (name.endsWith('.json')) {
      const json = documentJson(name.slice(0, -'.json'.length));
      if (!json) throw new AppError('REQUEST.NOT_FOUND', `No document ${name}`);
      return void res.type('application/json').send(json);
    }
    const html = pages.get(name);
    if (!html) throw new AppError('REQUEST.NOT_FOUND', `No document ${name}`);
    res.setHeader('Content-Security-Policy', csp);
    res.type('html').send(html);
  });
  return r;
}

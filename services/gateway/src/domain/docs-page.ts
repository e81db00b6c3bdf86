/** A contract document as listed on the index page. */
export interface DocEntry {
  name: string;
  kind: 'openapi' | 'asyncapi';
  title: string;
  version: string;
}

type Json = Record<string, unknown>;

const escapeHtml = (s: unknown): string =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

const style = `body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1rem 2rem;color:#222}
h1,h2,h3{line-height:1.2}code,pre{font:13px ui-monospace,monospace}pre{background:#f5f5f5;padding:.75rem;overflow:auto;white-space:pre-wrap}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}
.m{font-weight:bold;text-transform:uppercase;font-family:ui-monospace,monospace}.dep{text-decoration:line-through}
details{margin:.25rem 0}summary{cursor:pointer}nav a{margin-right:1rem}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${style}</style></head><body>
<nav><a href="/docs">All documents</a></nav>${body}</body></html>`;
}

/** Renders the /docs index: every OpenAPI document and the AsyncAPI one, with links to HTML and JSON. */
export function renderIndex(entries: DocEntry[]): string {
  const rows = entries
    .map(
      (e) =>
        `<tr><td><a href="/docs/${escapeHtml(e.name)}">${escapeHtml(e.title)}</a></td><td>${escapeHtml(e.kind)}</td>` +
        `<td>${escapeHtml(e.version)}</td><td><a href="/docs/${escapeHtml(e.name)}.json">${escapeHtml(e.name)}.json</a></td></tr>`,
    )
    .join('');
  return page(
    'cc-suite API documents',
    `<h1>cc-suite API documents</h1><p>Public APIs (OpenAPI 3.1) and events (AsyncAPI 3) of the suite.</p>
<table><thead><tr><th>Document</th><th>Kind</th><th>Version</th><th>Raw</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}

function schemaBlock(name: string, schema: unknown): string {
  return `<details><summary><code>${escapeHtml(name)}</code></summary><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre></details>`;
}

function securityText(security: unknown): string {
  if (!Array.isArray(security)) return '';
  return security
    .map((req) =>
      Object.entries(req as Record<string, string[]>)
        .map(([scheme, scopes]) => (scopes.length ? `${scheme}: ${scopes.join(' ')}` : scheme))
        .join(' + '),
    )
    .filter(Boolean)
    .join(' or ');
}

/** Renders one OpenAPI document: description, every operation with parameters and responses, the schemas. */
export function renderOpenApi(name: string, doc: Json): string {
  const info = (doc.info ?? {}) as Json;
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  const ops: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'put', 'post', 'delete', 'patch'].includes(method)) continue;
      const params = ((op.parameters ?? []) as Json[])
        .map(
          (p) => `<li><code>${escapeHtml(p.name)}</code> (${escapeHtml(p.in)}${p.required ? ', required' : ''})</li>`,
        )
        .join('');
      const responses = Object.entries((op.responses ?? {}) as Record<string, Json>)
        .map(([status, r]) => `<li><code>${escapeHtml(status)}</code> ${escapeHtml(r.description)}</li>`)
        .join('');
      const body = op.requestBody
        ? `<details><summary>Request body</summary><pre>${escapeHtml(JSON.stringify((op.requestBody as Json).content, null, 2))}</pre></details>`
        : '';
      ops.push(`<h3 id="${escapeHtml(op.operationId)}"><span class="m">${escapeHtml(method)}</span>
<code class="${op.deprecated ? 'dep' : ''}">${escapeHtml(path)}</code></h3>
<p>${escapeHtml(op.summary)}${op.deprecated ? ' <em>(deprecated)</em>' : ''}</p>
${op.description ? `<pre>${escapeHtml(op.description)}</pre>` : ''}
<p>Security: ${escapeHtml(securityText(op.security) || 'none')}</p>
${params ? `<p>Parameters:</p><ul>${params}</ul>` : ''}${body}<p>Responses:</p><ul>${responses}</ul>`);
    }
  }
  const schemas = Object.entries(((doc.components as Json | undefined)?.schemas ?? {}) as Json)
    .map(([n, s]) => schemaBlock(n, s))
    .join('');
  return page(
    String(info.title ?? name),
    `<h1>${escapeHtml(info.title)} <small>${escapeHtml(info.version)}</small></h1>
<p><a href="/docs/${escapeHtml(name)}.json">${escapeHtml(name)}.json</a></p>
<pre>${escapeHtml(info.description)}</pre><h2>Operations</h2>${ops.join('\n')}<h2>Schemas</h2>${schemas}`,
  );
}

/** Renders the AsyncAPI document: every channel (topic) with its messages and their payload schemas. */
export function renderAsyncApi(name: string, doc: Json): string {
  const info = (doc.info ?? {}) as Json;
  const channels = Object.entries((doc.channels ?? {}) as Record<string, Json>)
    .map(([id, ch]) => {
      const messages = Object.entries((ch.messages ?? {}) as Record<string, Json>)
        .map(([m, msg]) => {
          const resolved = typeof msg.$ref === 'string' ? resolveRef(doc, msg.$ref) : msg;
          return schemaBlock(
            `${m}${resolved?.summary ? ` - ${String(resolved.summary)}` : ''}`,
            resolved?.payload ?? resolved,
          );
        })
        .join('');
      return `<h3><code>${escapeHtml(ch.address ?? id)}</code></h3><p>${escapeHtml(ch.description)}</p>${messages}`;
    })
    .join('\n');
  const operations = Object.entries((doc.operations ?? {}) as Record<string, Json>)
    .map(
      ([id, op]) => `<li><code>${escapeHtml(id)}</code>: ${escapeHtml(op.action)} ${escapeHtml(op.summary ?? '')}</li>`,
    )
    .join('');
  return page(
    String(info.title ?? name),
    `<h1>${escapeHtml(info.title)} <small>${escapeHtml(info.version)}</small></h1>
<p><a href="/docs/${escapeHtml(name)}.json">${escapeHtml(name)}.json</a></p>
<pre>${escapeHtml(info.description)}</pre><h2>Channels</h2>${channels}<h2>Operations</h2><ul>${operations}</ul>`,
  );
}

function resolveRef(doc: Json, ref: string): Json | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const seg of ref.slice(2).split('/'))
    node = (node as Json | undefined)?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node as Json | undefined;
}

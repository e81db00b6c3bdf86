// biome-ignore-all lint/suspicious/noExplicitAny: the tests walk untyped JSON documents.
import SwaggerParser from '@apidevtools/swagger-parser';
import {
  analysisItemV1,
  invocation,
  limits,
  type OpenApiObject,
  openApiDocuments,
  providerSettings,
  scopes,
} from '../src/index';
import { strictAjv } from './helpers/strict-ajv';

const methods = ['get', 'put', 'post', 'delete', 'patch'] as const;
const oauthEndpoints = new Set(['issueToken', 'v0Token']);
const docs = Object.entries(openApiDocuments) as [string, OpenApiObject][];

interface Operation {
  path: string;
  method: string;
  op: Record<string, any>;
}

function operationsOf(doc: OpenApiObject): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const method of methods) {
      if (item[method]) out.push({ path, method, op: item[method] as Record<string, any> });
    }
  }
  return out;
}

/** Every object under `node` that has a schema together with an example or examples (media types, parameters). */
function examplesOf(node: unknown, at = '#'): { at: string; schema: object; value: unknown }[] {
  if (node === null || typeof node !== 'object') return [];
  const found: { at: string; schema: object; value: unknown }[] = [];
  const record = node as Record<string, unknown>;
  if (record.schema && typeof record.schema === 'object') {
    if ('example' in record) found.push({ at, schema: record.schema, value: record.example });
    for (const [name, ex] of Object.entries((record.examples as Record<string, { value: unknown }>) ?? {})) {
      if (ex && typeof ex === 'object' && 'value' in ex)
        found.push({ at: `${at}/examples/${name}`, schema: record.schema, value: ex.value });
    }
  }
  for (const [key, value] of Object.entries(record)) {
    if (key !== 'schema' && key !== 'examples') found.push(...examplesOf(value, `${at}/${key}`));
  }
  return found;
}

/** Every `schema` object in a dereferenced document. */
function schemasOf(node: unknown, at = '#'): { at: string; schema: object }[] {
  if (node === null || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  const found: { at: string; schema: object }[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (key === 'schema' && value && typeof value === 'object') found.push({ at: `${at}/schema`, schema: value });
    else found.push(...schemasOf(value, `${at}/${key}`));
  }
  return found;
}

describe.each(docs)('OpenAPI document %s', (_name, doc) => {
  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    expect(doc.openapi).toBe('3.1.0');
  });

  it('compiles every schema strictly and every example validates against its schema', async () => {
    const deref = (await SwaggerParser.dereference(structuredClone(doc) as never)) as unknown as OpenApiObject;
    const ajv = strictAjv();
    const schemas = schemasOf(deref);
    expect(schemas.length).toBeGreaterThan(0);
    for (const { at, schema } of schemas) {
      expect(() => ajv.compile(schema)).not.toThrow();
      void at;
    }
    const examples = examplesOf(deref);
    expect(examples.length).toBeGreaterThan(0);
    const failures = examples.flatMap(({ at, schema, value }) => {
      const validate = ajv.compile(schema);
      return validate(value) ? [] : [{ at, errors: validate.errors }];
    });
    expect(failures).toEqual([]);
  });

  it('gives every operation a unique id, a security requirement and problem+json for each 4xx', () => {
    const ids = new Set<string>();
    const schemes = ((doc.components as OpenApiObject).securitySchemes ?? {}) as Record<string, any>;
    for (const { path, method, op } of operationsOf(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      expect([where, ids.has(op.operationId)]).toEqual([where, false]);
      ids.add(op.operationId);
      expect([where, Array.isArray(op.security)]).toEqual([where, true]);
      for (const requirement of op.security as Record<string, string[]>[]) {
        for (const [scheme, wanted] of Object.entries(requirement)) {
          expect([where, scheme in schemes]).toEqual([where, true]);
          const known = Object.keys(schemes[scheme]?.flows?.clientCredentials?.scopes ?? {});
          for (const scope of wanted) expect([where, known]).toEqual([where, expect.arrayContaining([scope])]);
        }
      }
      const statuses = Object.keys(op.responses);
      expect([where, statuses.some((s) => /^2/.test(s))]).toEqual([where, true]);
      for (const status of statuses.filter((s) => /^4/.test(s))) {
        const types = Object.keys(op.responses[status].content ?? {});
        const wanted =
          oauthEndpoints.has(op.operationId) && status !== '429' ? 'application/json' : 'application/problem+json';
        expect([where, status, types]).toEqual([where, status, [wanted]]);
      }
      const secured = (op.security as Record<string, string[]>[]).some((r) => Object.keys(r).length > 0);
      const oauth = (op.security as Record<string, string[]>[]).some((r) => 'oauth2' in r || 'v0Token' in r);
      if (oauth) expect([where, statuses]).toEqual([where, expect.arrayContaining(['401', '403', '429'])]);
      if (secured) expect([where, statuses]).toEqual([where, expect.arrayContaining(['401'])]);
      const params = (op.parameters ?? []) as { in: string; name: string }[];
      if (params.some((p) => p.in === 'query' || p.in === 'path') || op.requestBody) {
        expect([where, statuses]).toEqual([where, expect.arrayContaining(['400'])]);
      }
      if (op.requestBody?.content?.['application/json'] && !oauthEndpoints.has(op.operationId)) {
        expect([where, statuses]).toEqual([where, expect.arrayContaining(['413', '415'])]);
      }
      if (params.some((p) => p.in === 'header' && p.name === 'Accept')) {
        expect([where, statuses]).toEqual([where, expect.arrayContaining(['406'])]);
        const example = op.responses['406'].content['application/problem+json'].example;
        expect([where, example.validVersions]).toEqual([where, expect.any(Array)]);
      }
    }
  });
});

describe('document content', () => {
  it('embeds the very schemas the validators use', async () => {
    const deref = (await SwaggerParser.dereference(structuredClone(openApiDocuments.interactions) as never)) as any;
    expect(deref.components.schemas.Invocation).toEqual(JSON.parse(JSON.stringify(invocation)));
    expect(deref.components.schemas.ProviderSettings).toEqual(JSON.parse(JSON.stringify(providerSettings)));
    const analyzer = (await SwaggerParser.dereference(
      structuredClone(openApiDocuments['conversation-analyzer']) as never,
    )) as any;
    const content = analyzer.paths['/conversation-analyzer/interactions/{guid}'].get.responses['200'].content;
    expect(content['application/vnd.newvoicemedia.v1+json'].schema).toEqual(JSON.parse(JSON.stringify(analysisItemV1)));
  });

  it('keeps the JSON readable with $refs to named components', () => {
    const invoke = (openApiDocuments.interactions as any).paths['/interactions/Invoke'].post;
    expect(invoke.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Invocation' });
  });

  it('serves both path spellings of Invoke and Register', () => {
    const paths = Object.keys((openApiDocuments.interactions as any).paths);
    expect(paths).toEqual([
      '/interactions/Invoke',
      '/interactions/invoke',
      '/interactions/Register',
      '/interactions/register',
    ]);
  });

  it('defines the oauth2 client-credentials scheme with every scope, and v0 its own', () => {
    const scheme = (openApiDocuments.statistics as any).components.securitySchemes.oauth2;
    expect(scheme.flows.clientCredentials.tokenUrl).toBe('/Auth/connect/token');
    expect(Object.keys(scheme.flows.clientCredentials.scopes)).toEqual(Object.keys(scopes));
    const v0 = (openApiDocuments['v0-statistics'] as any).components.securitySchemes;
    expect(v0.v0Token.flows.clientCredentials.tokenUrl).toBe('/v0/oauth2/token');
    expect(v0.v0Basic).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  it('documents the provider notification webhook with the Standard Webhooks headers', () => {
    const webhook = (openApiDocuments.interactions as any).webhooks.providerNotification.post;
    expect(webhook.parameters.map((p: { name: string }) => p.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    expect(webhook.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ProviderNotificationBody',
    });
  });

  it('offers the v1, v2 and v3 analysis shapes by media type', () => {
    const content = (openApiDocuments['conversation-analyzer'] as any).paths[
      '/conversation-analyzer/interactions/{guid}'
    ].get.responses['200'].content;
    expect(content['application/vnd.newvoicemedia.v1+json'].schema).toEqual({
      $ref: '#/components/schemas/AnalysisItemV1',
    });
    expect(content['application/vnd.cc-suite.v2+json'].schema).toEqual({ $ref: '#/components/schemas/AnalysisItemV2' });
    expect(content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AnalysisItemV3' });
  });

  it('records the decisions the spec leaves open in the descriptions', () => {
    const text = (name: keyof typeof openApiDocuments) => (openApiDocuments[name] as any).info.description as string;
    expect(text('interactions')).toMatch(/\*\*202\*\*/);
    expect(text('interactions')).toContain(`At most **${limits.maxRequestsPerInvoke}** request objects`);
    expect(text('interactions')).toMatch(/\*\*201\*\* when it creates.*\*\*200\*\* when it replaces/);
    expect(text('statistics')).toContain(`max ${limits.maxPageLimit}`);
    expect(text('statistics')).toContain('**31 days**');
    expect(text('agent-summaries')).toContain('SUMMARIES.FEATURE_DISABLED');
    expect(text('conversation-analyzer')).toContain('application/vnd.newvoicemedia.v{1|2|3}+json');
    expect(text('conversation-analyzer')).toContain('application/vnd.cc-suite.v{1|2|3}+json');
  });
});

describe('contract and server agree (issue 19 item 6)', () => {
  type Op = {
    responses: Record<string, { content?: Record<string, unknown> }>;
    requestBody?: { required?: boolean };
  };
  const op = (doc: Record<string, unknown>, path: string, method: string): Op =>
    (doc.paths as Record<string, Record<string, Op>>)[path]?.[method] as Op;

  it('documents the vendor media types the versioned APIs answer with', () => {
    for (const [doc, path, method, status] of [
      [openApiDocuments.admin, '/admin/account', 'get', '200'],
      [openApiDocuments.admin, '/admin/clients', 'post', '201'],
      [openApiDocuments['agent-desktop'], '/agent-desktop/agents/{agentId}/presence', 'get', '200'],
      [openApiDocuments.interactions, '/interactions/Invoke', 'post', '202'],
    ] as const) {
      const content = Object.keys(op(doc, path, method).responses[status]?.content ?? {});
      expect({ path, content }).toEqual({
        path,
        content: expect.arrayContaining(['application/json', 'application/vnd.newvoicemedia.v1+json']),
      });
    }
  });

  it('documents the 422 and 201 answers the services give, and that transfer needs a body', () => {
    const admin = openApiDocuments.admin;
    expect(Object.keys(op(admin, '/admin/agents', 'post').responses)).toContain('422');
    expect(Object.keys(op(admin, '/admin/agents/{id}', 'put').responses)).toContain('422');
    expect(Object.keys(op(admin, '/admin/skills/{name}', 'put').responses)).toEqual(
      expect.arrayContaining(['200', '201']),
    );
    const transfer = op(
      openApiDocuments['agent-desktop'],
      '/agent-desktop/agents/{agentId}/interactions/{interactionId}/transfer',
      'post',
    );
    expect(transfer.requestBody?.required).toBe(true);
    expect(Object.keys(transfer.responses)).toContain('422');
  });
});

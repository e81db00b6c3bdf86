import { openApiDocuments } from '@cc/contracts';
import {
  allowedMethods,
  methodAllowed,
  operationsOf,
  resolveRoute,
  unsafePathReason,
} from '../../src/domain/route-table';

describe('route table', () => {
  it.each([
    ['/interactions/Invoke', 'routing', 'interactions:write'],
    ['/interactions/invoke', 'routing', 'interactions:write'],
    ['/interactions/Register', 'provider-registry', 'interactions:write'],
    ['/interactions/register', 'provider-registry', 'interactions:write'],
    ['/admin/providers/acme/deliveries/replay', 'notifier', 'admin'],
    ['/admin/deliveries', 'notifier', 'admin'],
    ['/admin/deliveries/6f1c/replay', 'notifier', 'admin'],
    ['/admin/breakers', 'notifier', 'admin'],
    ['/admin/providers', 'provider-registry', 'admin'],
    ['/admin/providers/acme', 'provider-registry', 'admin'],
    ['/admin/providers/acme/signing-secret', 'provider-registry', 'admin'],
    ['/admin/agents/6f1c', 'routing', 'admin'],
    ['/admin/routes', 'routing', 'admin'],
    ['/admin/interaction-plans/Support', 'routing', 'admin'],
    ['/admin/skills/Printers', 'routing', 'admin'],
    ['/admin/interactions/6f1c/trace', 'routing', 'admin'],
    ['/admin/accounts', 'gateway', 'admin'],
    ['/admin/account', 'gateway', 'admin'],
    ['/admin/account/feature-flags', 'gateway', 'admin'],
    ['/admin/clients/cli_1', 'gateway', 'admin'],
    ['/admin/v0-credentials/k1', 'gateway', 'admin'],
    ['/agent-desktop/agents/a/offers', 'routing', 'agent'],
    ['/stats/wfm/agent-summaries', 'summaries', 'stats'],
    ['/stats/agent-activities', 'statistics', 'stats'],
    ['/stats/interactions', 'statistics', 'stats'],
    ['/conversation-analyzer/interactions/6f1c', 'analysis', 'interaction-content:read'],
    ['/conversation-analyzer/interactions', 'analysis', 'interaction-content:read'],
    ['/conversation-analyzer/recordings/6f1c', 'analysis', 'interaction-content:write'],
    ['/admin/analysis/categories', 'analysis', 'admin'],
  ])('%s → %s with scope %s', (path, target, scope) => {
    const route = resolveRoute(path);
    expect(route?.rule.target).toBe(target);
    expect(route?.rule.access).toEqual({ kind: 'scope', scope });
  });

  it('marks only the recording upload as a media body (any Content-Type, the media limit)', () => {
    expect(resolveRoute('/conversation-analyzer/recordings/6f1c')?.rule.mediaBody).toBe(true);
    expect(resolveRoute('/conversation-analyzer/interactions/6f1c')?.rule.mediaBody).toBeUndefined();
    expect(resolveRoute('/interactions/Invoke')?.rule.mediaBody).toBeUndefined();
  });

  it('sends /v0 statistics to the statistics service for v0 tokens, naming the account key', () => {
    expect(resolveRoute('/v0/acme-1/statistics/agentstates')).toMatchObject({
      rule: { target: 'statistics', access: { kind: 'v0' } },
      accountKey: 'acme-1',
    });
  });

  it.each([
    '/Auth/connect/token',
    '/auth/connect/token',
    '/.well-known/jwks.json',
    '/v0/oauth2/token',
    '/docs',
    '/docs/admin.json',
    '/console',
    '/console/assets/index-abc.js',
  ])('%s is public and served by the gateway', (path) => {
    expect(resolveRoute(path)?.rule).toMatchObject({ target: 'gateway', access: { kind: 'public' } });
  });

  it.each([
    '/',
    '/metrics',
    '/interactions',
    '/interactions/Invoke/x',
    '/admin',
    '/admin/skillset',
    '/statsx',
    '/v0/acme',
    '/agent-desktop',
    '/consoles',
  ])('%s has no route', (path) => {
    expect(resolveRoute(path)).toBeUndefined();
  });

  it('refuses dot segments, empty segments and encoded slashes', () => {
    for (const p of [
      '/stats/../admin',
      '/stats/%2e%2E/admin',
      '/stats/./x',
      '/stats/..',
      '/stats/a%2fb',
      '/stats/a%5Cb',
      '/stats//x',
    ]) {
      expect({ p, why: unsafePathReason(p) }).toEqual({ p, why: expect.any(String) });
    }
    for (const p of ['/stats/agent-activities', '/admin/skills/my.skill', '/stats/a..b', '/docs/admin.json']) {
      expect(unsafePathReason(p)).toBeUndefined();
    }
  });

  it('derives allowed methods from the OpenAPI documents', () => {
    expect(allowedMethods('/interactions/Invoke')).toEqual(['POST']);
    expect(allowedMethods('/stats/agent-activities')).toEqual(['GET', 'HEAD']);
    expect(allowedMethods('/admin/routes/Support')).toEqual(['DELETE', 'GET', 'HEAD', 'PUT']);
    expect(allowedMethods('/admin/account/feature-flags')).toEqual(['GET', 'HEAD', 'PATCH']);
    expect(allowedMethods('/stats/not-documented')).toBeUndefined();
    const ops = operationsOf({ d: { paths: { '/a/{id}.json': { get: {}, parameters: {} } } } });
    expect(allowedMethods('/a/x.json', ops)).toEqual(['GET', 'HEAD']);
    expect(allowedMethods('/a/xyjson', ops)).toBeUndefined();
  });

  it("answers from the operations of the path's first segment as a search of every operation would", () => {
    const docs = openApiDocuments as unknown as Parameters<typeof operationsOf>[0];
    const every = operationsOf(docs); // another array: searched whole, not by segment
    const paths = Object.values(docs).flatMap((d) =>
      Object.keys(d.paths ?? {}).map((t) => t.replace(/\{[^}]+\}/g, 'x1')),
    );
    paths.push('/', '/x1', '/stats', '/stats/', '/nowhere/at/all', '/v0/acme/statistics/x1');
    for (const path of paths) {
      expect(allowedMethods(path)).toEqual(allowedMethods(path, every));
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])
        expect(methodAllowed(path, method)).toBe(
          !allowedMethods(path, every) || allowedMethods(path, every)?.includes(method),
        );
    }
  });

  it('documents 502 and 504 exactly on the operations it passes to a service, and 503 with Retry-After on all but the signing keys', () => {
    const seen = { proxied: 0, own: 0 };
    for (const [name, doc] of Object.entries(openApiDocuments)) {
      for (const [template, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
        const route = resolveRoute(template.replace(/\{[^}]+\}/g, 'x1'));
        const proxied = route !== undefined && route.rule.target !== 'gateway';
        seen[proxied ? 'proxied' : 'own']++;
        for (const [method, op] of Object.entries(item)) {
          if (!['get', 'put', 'post', 'delete', 'patch'].includes(method)) continue;
          const responses = (op as { responses: Record<string, { headers?: Record<string, { required?: boolean }> }> })
            .responses;
          const where = `${name}: ${method.toUpperCase()} ${template}`;
          expect([where, '502' in responses, '504' in responses]).toEqual([where, proxied, proxied]);
          // The signing keys come from the gateway's memory: nothing behind them can be down.
          const fromMemory = template === '/.well-known/jwks.json';
          expect([where, responses['503']?.headers?.['Retry-After']?.required]).toEqual([
            where,
            fromMemory ? undefined : true,
          ]);
        }
      }
    }
    expect(seen.proxied).toBeGreaterThan(20);
    expect(seen.own).toBeGreaterThan(3); // the token endpoints, the identity administration
  });

  it('allows a method on an undocumented path and refuses one a documented path does not name', () => {
    expect(methodAllowed('/stats/agent-activities', 'GET')).toBe(true);
    expect(methodAllowed('/stats/agent-activities', 'POST')).toBe(false);
    expect(methodAllowed('/stats/not-documented', 'DELETE')).toBe(true);
  });
});

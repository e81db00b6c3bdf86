import { routeTable } from '../../services/gateway/src/domain/route-table';
import { type K8sObject, overlays, renderOverlay } from './support/manifests';

// The Ingress admits exactly the public API of the gateway's route table: every route is reachable from
// outside, nothing else is (no catch-all `/`, so /metrics, /healthz and /readyz stay cluster-internal).

interface IngressPath {
  path: string;
  pathType: 'Exact' | 'Prefix' | 'ImplementationSpecific';
}

/** The literal start of a route pattern (`/interactions/` of `^\/interactions\/(?:Invoke|invoke)$`). */
function literalPrefix(pattern: RegExp): { literal: string } {
  const src = pattern.source.replace(/^\^/, '');
  let literal = '';
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as string;
    if (c === '\\') {
      literal += src[++i] ?? '';
      continue;
    }
    if ('()[]?*+|$.{'.includes(c)) return { literal };
    literal += c;
  }
  return { literal };
}

/** Whether Kubernetes routes `path` through this Ingress path (Prefix matches whole segments). */
function admits(rule: IngressPath, path: string): boolean {
  if (rule.pathType === 'Exact') return path === rule.path;
  const prefix = rule.path.replace(/\/$/, '');
  return path === prefix || path.startsWith(`${prefix}/`);
}

function ingressPaths(objects: K8sObject[]): IngressPath[] {
  const ingresses = objects.filter((o) => o.kind === 'Ingress');
  expect(ingresses.map((i) => i.metadata.name)).toEqual(['gateway']);
  const spec = ingresses[0]?.spec as { rules: { http: { paths: IngressPath[] } }[] };
  return spec.rules.flatMap((r) => r.http.paths);
}

const publicRoutes = routeTable.map((r) => ({ name: r.name, ...literalPrefix(r.pattern) }));

describe.each(overlays())('Ingress of overlay %s', (overlay) => {
  let paths: IngressPath[] = [];
  beforeAll(async () => {
    paths = ingressPaths(await renderOverlay(overlay));
  });

  it.each(publicRoutes)('admits the route $name ($literal)', ({ literal }) => {
    expect(paths.some((p) => admits(p, literal))).toBe(true);
  });

  it('has no path that serves no route', () => {
    const unused = paths.filter(
      (p) => !routeTable.some((r) => r.pattern.test(p.path)) && !publicRoutes.some((r) => admits(p, r.literal)),
    );
    expect(unused).toEqual([]);
  });

  it.each(['/metrics', '/healthz', '/readyz', '/'])('keeps %s cluster-internal', (path) => {
    expect(paths.filter((p) => admits(p, path))).toEqual([]);
  });
});

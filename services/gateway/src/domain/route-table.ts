import { openApiDocuments } from '@cc/contracts';

/** The services behind the gateway. */
export const upstreams = ['routing', 'provider-registry', 'notifier', 'summaries', 'analysis', 'statistics'] as const;

/** A service behind the gateway. */
export type Upstream = (typeof upstreams)[number];

/** Who may call a route: anyone, a bearer token of a scope, or a v0 token of the path's account key. */
export type Access = { kind: 'public' } | { kind: 'scope'; scope: string } | { kind: 'v0' };

/** A route of the public API: where it goes and what it requires. */
export interface RouteRule {
  /** Stable name, for logs and metrics. */
  name: string;
  pattern: RegExp;
  /** `gateway` for what the gateway serves itself. */
  target: Upstream | 'gateway';
  access: Access;
  /**
   * The body is media (any Content-Type; the owning service checks it) under the larger media body limit,
   * instead of JSON under the default limit.
   */
  mediaBody?: true;
}

/** A request path resolved to its rule. */
export interface ResolvedRoute {
  rule: RouteRule;
  /** The `{accountKey}` of a /v0 path. */
  accountKey?: string;
}

const pub: Access = { kind: 'public' };
const scope = (s: string): Access => ({ kind: 'scope', scope: s });
/** `prefix` itself or anything below it, segment-aware (`/admin/skills` but not `/admin/skillset`). */
const under = (prefix: string): RegExp => new RegExp(`^${prefix.replace(/[.]/g, '\\.')}(?:/.*)?$`);

/**
 * The route table, first match wins (ARCHITECTURE §2 base paths and scopes). Kept in one place so the
 * tests, the README and the proxy agree.
 */
export const routeTable: readonly RouteRule[] = [
  { name: 'token', pattern: /^\/Auth\/connect\/token$/i, target: 'gateway', access: pub },
  { name: 'jwks', pattern: /^\/\.well-known\/jwks\.json$/, target: 'gateway', access: pub },
  { name: 'v0-token', pattern: /^\/v0\/oauth2\/token$/, target: 'gateway', access: pub },
  { name: 'docs', pattern: under('/docs'), target: 'gateway', access: pub },
  // The operator console's static files; it signs in through the token endpoint like any API client.
  { name: 'console', pattern: under('/console'), target: 'gateway', access: pub },
  {
    name: 'invoke',
    pattern: /^\/interactions\/(?:Invoke|invoke)$/,
    target: 'routing',
    access: scope('interactions:write'),
  },
  {
    name: 'register',
    pattern: /^\/interactions\/(?:Register|register)$/,
    target: 'provider-registry',
    access: scope('interactions:write'),
  },
  {
    name: 'admin-provider-replay',
    pattern: /^\/admin\/providers\/[^/]+\/deliveries\/replay$/,
    target: 'notifier',
    access: scope('admin'),
  },
  { name: 'admin-deliveries', pattern: under('/admin/deliveries'), target: 'notifier', access: scope('admin') },
  { name: 'admin-breakers', pattern: under('/admin/breakers'), target: 'notifier', access: scope('admin') },
  { name: 'admin-providers', pattern: under('/admin/providers'), target: 'provider-registry', access: scope('admin') },
  {
    name: 'admin-routing',
    pattern: /^\/admin\/(?:agents|routes|interaction-plans|skills)(?:\/.*)?$/,
    target: 'routing',
    access: scope('admin'),
  },
  { name: 'admin-interactions', pattern: /^\/admin\/interactions\/.+$/, target: 'routing', access: scope('admin') },
  {
    name: 'admin-identity',
    pattern: /^\/admin\/(?:accounts|account|clients|v0-credentials)(?:\/.*)?$/,
    target: 'gateway',
    access: scope('admin'),
  },
  { name: 'event-stream', pattern: /^\/events\/stream$/, target: 'gateway', access: scope('admin') },
  { name: 'agent-desktop', pattern: /^\/agent-desktop\/.+$/, target: 'routing', access: scope('agent') },
  { name: 'agent-summaries', pattern: under('/stats/wfm'), target: 'summaries', access: scope('stats') },
  { name: 'statistics', pattern: under('/stats'), target: 'statistics', access: scope('stats') },
  {
    name: 'v0-statistics',
    pattern: /^\/v0\/([^/]+)\/statistics(?:\/.*)?$/,
    target: 'statistics',
    access: { kind: 'v0' },
  },
  {
    name: 'analysis-recordings',
    pattern: /^\/conversation-analyzer\/recordings\/[^/]+$/,
    target: 'analysis',
    access: scope('interaction-content:write'),
    mediaBody: true,
  },
  { name: 'admin-analysis', pattern: under('/admin/analysis'), target: 'analysis', access: scope('admin') },
  {
    name: 'conversation-analyzer',
    pattern: under('/conversation-analyzer'),
    target: 'analysis',
    access: scope('interaction-content:read'),
  },
];

/** The rule a path falls under, or undefined (404). */
export function resolveRoute(path: string): ResolvedRoute | undefined {
  for (const rule of routeTable) {
    const m = rule.pattern.exec(path);
    if (!m) continue;
    return rule.name === 'v0-statistics' ? { rule, accountKey: m[1] } : { rule };
  }
  return undefined;
}

/**
 * Why a raw path is refused before routing, or undefined: dot segments, empty segments, backslashes and
 * encoded slashes could make the gateway and a service disagree on which resource is meant.
 */
export function unsafePathReason(rawPath: string): string | undefined {
  if (/%2f|%5c|\\/i.test(rawPath)) return 'The path must not contain encoded slashes or backslashes';
  const decoded = rawPath.replace(/%2e/gi, '.');
  if (/(^|\/)\.{1,2}(\/|$)/.test(decoded)) return 'The path must not contain . or .. segments';
  if (/\/\//.test(rawPath)) return 'The path must not contain empty segments';
  return undefined;
}

interface Operation {
  pattern: RegExp;
  methods: Set<string>;
  /** The template's first path segment when it is literal (`stats` of `/stats/{id}`), else undefined. */
  first?: string;
}

const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Documented operations of every OpenAPI document: path template → methods. */
export function operationsOf(documents: Record<string, { paths?: Record<string, Record<string, unknown>> }>) {
  const ops: Operation[] = [];
  for (const doc of Object.values(documents)) {
    for (const [template, item] of Object.entries(doc.paths ?? {})) {
      const source = template
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      const methods = new Set(
        Object.keys(item)
          .filter((k) => httpMethods.includes(k))
          .map((k) => k.toUpperCase()),
      );
      if (methods.has('GET')) methods.add('HEAD');
      const first = template.split('/')[1] ?? '';
      ops.push({ pattern: new RegExp(`^${source}$`), methods, ...(first.includes('{') ? {} : { first }) });
    }
  }
  return ops;
}

const documented = operationsOf(openApiDocuments as unknown as Parameters<typeof operationsOf>[0]);

/** A path's first segment (`stats` of `/stats/agent-activities`). */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end < 0 ? path.slice(1) : path.slice(1, end);
}

/**
 * The documented operations a path can match, by its first segment: those whose template starts with that literal
 * segment and those starting with a parameter (the only ones for any other segment). A request tries its few
 * instead of every documented operation.
 */
const bySegment = new Map<string, Operation[]>();
const anySegment = documented.filter((op) => op.first === undefined);
for (const op of documented) {
  if (op.first === undefined) continue;
  const ops = bySegment.get(op.first) ?? [...anySegment];
  ops.push(op);
  bySegment.set(op.first, ops);
}
const candidatesOf = (path: string, ops: Operation[]) =>
  ops === documented ? (bySegment.get(firstSegment(path)) ?? anySegment) : ops;

/**
 * The methods the OpenAPI documents allow on a path, or undefined when no document names the path (the owning
 * service then decides). A documented path called with another method is a 405.
 */
export function allowedMethods(path: string, ops: Operation[] = documented): string[] | undefined {
  const methods = new Set<string>();
  for (const op of candidatesOf(path, ops)) if (op.pattern.test(path)) for (const m of op.methods) methods.add(m);
  return methods.size ? [...methods].sort() : undefined;
}

/** Whether `method` may be used on `path`: `allowedMethods` includes it, or no document names the path. */
export function methodAllowed(path: string, method: string, ops: Operation[] = documented): boolean {
  let documentedPath = false;
  for (const op of candidatesOf(path, ops)) {
    if (!op.pattern.test(path)) continue;
    if (op.methods.has(method)) return true;
    documentedPath = true;
  }
  return !documentedPath;
}

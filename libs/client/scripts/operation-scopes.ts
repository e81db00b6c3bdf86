// Which OAuth2 scope each operation's token must carry, read from the documents' security (no I/O).

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The parts of an OpenAPI document the scope map reads. */
export type OpenApiDoc = {
  security?: Record<string, string[]>[];
  paths?: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
};

/** `camelCase` of a document name (`agent-summaries` -> `agentSummaries`). */
export function apiKey(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** For every operation of a document, the OAuth2 scope alternatives its security names (`METHOD /path` -> scopes). */
export function operationScopes(doc: OpenApiDoc): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of methods) {
      const op = item[method];
      if (!op) continue;
      const security = op.security ?? doc.security ?? [];
      const scopes = security.flatMap((alt) => alt.oauth2 ?? []);
      if (scopes.length) out[`${method.toUpperCase()} ${path}`] = scopes;
    }
  }
  return out;
}

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are Compose interpolation syntax, not templates
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { root } from './manifests';

/** docker-compose.yml as Compose reads it (merge keys resolved). */
interface ComposeFile {
  services: Record<
    string,
    {
      build?: { args?: Record<string, string> };
      environment?: Record<string, unknown> | string[];
      healthcheck?: unknown;
    }
  >;
}

/**
 * Compose's variable interpolation against `vars` (the shell environment of `docker compose up`): `${X}`,
 * `${X:-default}`, `${X-default}`, `${X:?message}` (fails), `$$`.
 */
export function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g, (all, name, colon, op, arg) => {
    if (all === '$$') return '$';
    const v = vars[name as string];
    const unset = v === undefined || (colon === ':' && v === '');
    if (op === '-') return unset ? (arg as string) : (v as string);
    if (op === '?' && unset) throw new Error(`\${${name}} is required by docker-compose.yml: ${arg}`);
    return v ?? '';
  });
}

/** The environment each service of docker-compose.yml that is built from services/ gets, by service folder. */
export function composeServiceEnvs(
  file = resolve(root, 'deploy/docker/docker-compose.yml'),
  vars: Record<string, string | undefined> = {},
): Map<string, { composeName: string; env: Record<string, string>; hasHealthcheck: boolean }> {
  const doc = parse(readFileSync(file, 'utf8'), { merge: true }) as ComposeFile;
  const out = new Map<string, { composeName: string; env: Record<string, string>; hasHealthcheck: boolean }>();
  for (const [name, svc] of Object.entries(doc.services)) {
    const folder = svc.build?.args?.SERVICE;
    if (!folder) continue; // kafka, mongo: images, not ours
    const entries = Array.isArray(svc.environment)
      ? svc.environment.map((e) => {
          const i = e.indexOf('=');
          return [e.slice(0, i), e.slice(i + 1)] as const;
        })
      : Object.entries(svc.environment ?? {});
    const env = Object.fromEntries(entries.map(([k, v]) => [k, interpolate(String(v), vars)]));
    out.set(folder, { composeName: name, env, hasHealthcheck: !!svc.healthcheck });
  }
  return out;
}

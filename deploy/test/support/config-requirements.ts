import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { root } from './manifests';

const run = promisify(execFile);

/** What a service's configuration said about one environment. */
export interface ConfigVerdict {
  /** Every problem (`KEY: missing - ...`, `KEY: malformed (...)`); empty when the service would start. */
  problems: string[];
  /** The keys reported missing. */
  missing: string[];
}

/**
 * Loads `services/<service>/src/config.ts` in a child process with exactly `env` (plus PATH) and reports
 * what its spec rejects: the service's own validation, not a copy of it.
 */
export async function checkConfig(service: string, env: Record<string, string>): Promise<ConfigVerdict> {
  const probe = resolve(root, 'deploy/test/support/config-probe.ts');
  let stdout = '';
  let stderr = '';
  try {
    ({ stdout, stderr } = await run(process.execPath, ['--import', 'tsx', probe, service], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
    }));
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (e.code !== 78) throw new Error(`config probe of ${service} failed (exit ${e.code}): ${e.stderr}`);
    stdout = e.stdout ?? '';
    stderr = e.stderr ?? '';
  }
  const line = `${stdout}\n${stderr}`.split('\n').find((l) => l.includes('"problems"'));
  if (!line) throw new Error(`config probe of ${service} printed no verdict: ${stdout} ${stderr}`);
  const problems = (JSON.parse(line) as { problems: string[] }).problems;
  const missing = problems.filter((p) => /^[A-Z0-9_]+: missing/.test(p)).map((p) => p.split(':')[0] as string);
  return { problems, missing };
}

/** The variables a service requires (no default): what its config reports missing from an empty environment. */
export async function requiredVariables(service: string): Promise<string[]> {
  return (await checkConfig(service, {})).missing.sort();
}

/** The service folders under services/. */
export function serviceNames(): string[] {
  const { readdirSync, existsSync } = require('node:fs') as typeof import('node:fs');
  return readdirSync(resolve(root, 'services'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(resolve(root, 'services', d.name, 'src/config.ts')))
    .map((d) => d.name)
    .sort();
}

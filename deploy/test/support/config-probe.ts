/**
 * Child process: loads one service's configuration exactly as the service does, from this process's
 * environment, and prints `{"problems": [...]}` (empty when valid). Run by config-requirements.ts with a
 * controlled environment. Usage: node --import tsx deploy/test/support/config-probe.ts <service>
 */
import { resolve } from 'node:path';
import { loadConfig } from '@cc/kit';

async function main(): Promise<void> {
  const service = process.argv[2] ?? '';
  const report = (problems: string[]): never => {
    process.stdout.write(`${JSON.stringify({ problems })}\n`);
    process.exit(0);
  };
  // Some config modules parse process.env at import (and exit 78 listing the problems on stderr); the others
  // export their spec, which is parsed here the same way.
  const mod = (await import(resolve(__dirname, `../../../services/${service}/src/config.ts`))) as {
    configSpec?: Parameters<typeof loadConfig>[0];
  };
  if (mod.configSpec) loadConfig(mod.configSpec, process.env, report);
  report([]);
}

void main();

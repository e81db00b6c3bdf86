/**
 * Starts every service as a child process with prefixed log lines (colour only on a terminal),
 * waits until every /readyz answers 200, prints the gateway URL, and stops all on Ctrl-C/SIGTERM.
 * A service that exits is reported loudly and never restarted silently.
 * Usage: tsx deploy/local/runner.ts [--only a,b] [--exit-when-ready]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { instanceEnv, localBindHost, portOf, services } from './services';

const root = resolve(__dirname, '../..');
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1]?.split(',') : undefined;
const selected = services.filter((s) => !only || only.includes(s.name));
const tty = process.stdout.isTTY;
const colours = [36, 32, 33, 35, 34, 96, 92];
const width = Math.max(...selected.map((s) => s.name.length));
const children = new Map<string, ChildProcess>();
let stopping = false;

function prefix(name: string, i: number): string {
  const label = name.padEnd(width);
  return tty ? `\x1b[${colours[i % colours.length]}m${label}\x1b[0m |` : `${label} |`;
}

selected.forEach((svc, i) => {
  const child = spawn(process.execPath, ['--import', 'tsx', `services/${svc.name}/src/main.ts`], {
    cwd: root,
    env: {
      ...process.env,
      ...instanceEnv(svc.name),
      PORT: String(portOf(svc.name)),
      HOST: localBindHost(svc.name),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(svc.name, child);
  for (const stream of [child.stdout, child.stderr]) {
    if (stream)
      createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${prefix(svc.name, i)} ${line}\n`));
  }
  child.on('exit', (code, signal) => {
    children.delete(svc.name);
    if (!stopping)
      process.stdout.write(`${prefix(svc.name, i)} *** EXITED (code ${code}, signal ${signal}); not restarted ***\n`);
    if (stopping && children.size === 0) process.exit(0);
  });
});

async function waitReady(): Promise<void> {
  const deadline = Date.now() + 180_000;
  const pending = new Set(selected.map((s) => s.name));
  while (pending.size) {
    for (const svc of selected) {
      if (!pending.has(svc.name)) continue;
      if (!children.has(svc.name)) throw new Error(`${svc.name} exited before it was ready`);
      const ok = await fetch(`http://127.0.0.1:${portOf(svc.name)}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) pending.delete(svc.name);
    }
    if (!pending.size) break;
    if (Date.now() > deadline) throw new Error(`not ready after 180 s: ${[...pending].join(', ')}`);
    process.stdout.write(`[runner] waiting for ${[...pending].join(', ')}\n`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function stopAll(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`[runner] stopping ${children.size} service(s)\n`);
  if (children.size === 0) process.exit(0);
  for (const child of children.values()) child.kill(signal === 'SIGINT' ? 'SIGTERM' : signal);
  setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
    process.exit(1);
  }, 30_000).unref();
}

process.on('SIGINT', () => stopAll('SIGINT'));
process.on('SIGTERM', () => stopAll('SIGTERM'));

waitReady().then(
  () => {
    process.stdout.write(
      `[runner] all ${selected.length} services ready; gateway: http://127.0.0.1:${portOf('gateway')}\n`,
    );
    if (args.includes('--exit-when-ready')) stopAll('SIGTERM');
  },
  (err) => {
    process.stdout.write(`[runner] ${(err as Error).message}\n`);
    stopAll('SIGTERM');
    process.exitCode = 1;
  },
);

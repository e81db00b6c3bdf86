/**
 * Idle cost of the running suite: starts every service (or `--only a,b`) on ports of its own, waits until
 * each answers /readyz, lets them settle, then measures over a window (default 30 s) each process's CPU
 * (from /proc) and the store commands per second (FerretDB's debug metrics, so give the services a store
 * nobody else uses). Prints a table and writes the JSON to the path given as the first argument.
 *
 *   FERRETDB_METRICS_URL=http://127.0.0.1:8099/debug/metrics MONGO_URL=mongodb://127.0.0.1:27029 \
 *   KAFKA_BROKERS=127.0.0.1:9092 node --import tsx scripts/idle-probe.ts /tmp/idle.json
 *
 * Env: IDLE_PORT_BASE (default 28080), IDLE_WINDOW_S (30), IDLE_SETTLE_S (10), IDLE_GROUP_PREFIX (consumer
 * groups of their own, so a suite started elsewhere on the same broker keeps its partitions).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { services } from '../deploy/local/services';

const root = resolve(__dirname, '..');
const out = process.argv[2] ?? 'idle-probe.json';
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg > 0 ? process.argv[onlyArg + 1]?.split(',') : undefined;
const base = Number(process.env.IDLE_PORT_BASE ?? 28080);
const windowS = Number(process.env.IDLE_WINDOW_S ?? 30);
const settleS = Number(process.env.IDLE_SETTLE_S ?? 10);
const groups = process.env.IDLE_GROUP_PREFIX ?? `idle-${randomBytes(3).toString('hex')}`;
const metricsUrl = process.env.FERRETDB_METRICS_URL ?? 'http://127.0.0.1:8088/debug/metrics';
const ticksPerSecond = 100; // USER_HZ on Linux

const port = (name: string) => base + services.findIndex((s) => s.name === name);
const selected = services.filter((s) => !only || only.includes(s.name));
const upstreams = Object.fromEntries(
  services.map((s) => [`UPSTREAM_${s.name.toUpperCase().replace(/-/g, '_')}_URL`, `http://127.0.0.1:${port(s.name)}`]),
);

function cpuTicks(pid: number): number {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function storeCommands(): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^ferretdb_client_requests_total\{command="([^"]+)"[^}]*\} (\d+)/.exec(line);
    if (m) counts.set(m[1] as string, (counts.get(m[1] as string) ?? 0) + Number(m[2]));
  }
  return counts;
}

async function main(): Promise<void> {
  const children = new Map<string, ChildProcess>();
  const stopAll = () => {
    for (const c of children.values()) c.kill('SIGTERM');
  };
  process.on('SIGINT', stopAll);
  try {
    for (const svc of selected) {
      const child = spawn(process.execPath, ['--import', 'tsx', `services/${svc.name}/src/main.ts`], {
        cwd: root,
        env: {
          ...process.env,
          ...upstreams,
          PORT: String(port(svc.name)),
          LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
          AUTH_JWKS_URL: svc.name === 'gateway' ? '' : `http://127.0.0.1:${port('gateway')}/.well-known/jwks.json`,
          KAFKA_GROUP_ID: `${groups}.${svc.name}`,
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      children.set(svc.name, child);
    }
    const deadline = Date.now() + 180_000;
    for (const svc of selected) {
      for (;;) {
        const ok = await fetch(`http://127.0.0.1:${port(svc.name)}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        if (Date.now() > deadline || children.get(svc.name)?.exitCode !== null)
          throw new Error(`${svc.name} not ready`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    process.stdout.write(`[idle] ${selected.length} services ready; settling ${settleS} s, measuring ${windowS} s\n`);
    await new Promise((r) => setTimeout(r, settleS * 1000));
    const pids = [...children].map(([name, c]) => [name, c.pid as number] as const);
    const cpu0 = new Map(pids.map(([n, p]) => [n, cpuTicks(p)]));
    const store0 = await storeCommands();
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, windowS * 1000));
    const seconds = (Date.now() - t0) / 1000;
    const store1 = await storeCommands();
    const rows = pids.map(([name, pid]) => ({
      service: name,
      cpuPercent: Number((((cpuTicks(pid) - (cpu0.get(name) ?? 0)) / ticksPerSecond / seconds) * 100).toFixed(2)),
    }));
    const byCommand: Record<string, number> = {};
    let total = 0;
    for (const [cmd, n] of store1) {
      const d = n - (store0.get(cmd) ?? 0);
      if (d > 0) byCommand[cmd] = Number((d / seconds).toFixed(3));
      total += d;
    }
    const result = {
      windowSeconds: Number(seconds.toFixed(1)),
      services: rows,
      storeCommandsPerSecond: Number((total / seconds).toFixed(3)),
      storeCommandsPerSecondByCommand: byCommand,
    };
    for (const r of rows) process.stdout.write(`[idle] ${r.service.padEnd(18)} ${r.cpuPercent.toFixed(2)} % CPU\n`);
    process.stdout.write(`[idle] store commands/s: ${result.storeCommandsPerSecond} ${JSON.stringify(byCommand)}\n`);
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    stopAll();
  }
}

main().catch((err) => {
  process.stderr.write(`[idle] ${(err as Error).message}\n`);
  process.exitCode = 1;
});

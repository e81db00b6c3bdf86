/**
 * Idle cost of the running suite: starts every service (or `--only a,b`) on ports, consumer groups and databases of
 * its own, waits until each answers /readyz, lets them settle, then measures over one or more windows (default one of
 * 30 s) each process's CPU (from /proc), the events each consumed meanwhile (its /metrics: on a shared broker other
 * suites' traffic reaches the same topics, so a window with consumed events is not idle) and the store commands per
 * second (FerretDB's debug metrics, so give the services a store nobody else uses). Prints a table and writes the
 * JSON to the path given as the first argument.
 *
 *   FERRETDB_METRICS_URL=http://127.0.0.1:8099/debug/metrics MONGO_URL=mongodb://127.0.0.1:27029 \
 *   KAFKA_BROKERS=127.0.0.1:9092 node --import tsx scripts/idle-probe.ts /tmp/idle.json --only gateway
 *
 * Env: IDLE_PORT_BASE (default 28080), IDLE_WINDOW_S (30), IDLE_WINDOWS (1), IDLE_SETTLE_S (10), IDLE_GROUP_PREFIX
 * (consumer groups and databases of their own, so a suite started elsewhere on the same broker and store keeps its
 * partitions and documents), IDLE_STRACE=1 (count each process's system calls with `strace -f -c` over the windows:
 * `epoll_wait` calls are its wake-ups; strace slows the process, so do not read CPU from such a run), IDLE_CPU_PROF
 * (a folder: each service runs with `node --cpu-prof` and writes its profile there at exit), IDLE_ROOT (run the
 * services of another checkout, e.g. the base of a change, with this probe).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { services } from '../deploy/local/services';

const root = process.env.IDLE_ROOT ?? resolve(__dirname, '..'); // another checkout's services, for an A/B
const out = process.argv[2] ?? 'idle-probe.json';
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg > 0 ? process.argv[onlyArg + 1]?.split(',') : undefined;
const base = Number(process.env.IDLE_PORT_BASE ?? 28080);
const windowS = Number(process.env.IDLE_WINDOW_S ?? 30);
const windows = Number(process.env.IDLE_WINDOWS ?? 1);
const settleS = Number(process.env.IDLE_SETTLE_S ?? 10);
const groups = process.env.IDLE_GROUP_PREFIX ?? `idle-${randomBytes(3).toString('hex')}`;
const metricsUrl = process.env.FERRETDB_METRICS_URL ?? 'http://127.0.0.1:8088/debug/metrics';
const straceWanted = process.env.IDLE_STRACE === '1';
const cpuProfDir = process.env.IDLE_CPU_PROF;
const ticksPerSecond = 100; // USER_HZ on Linux
// Stable per group prefix: a rerun with the same IDLE_GROUP_PREFIX reuses the databases its key sealed.
const encryptionKeys = `idle:${createHash('sha256').update(`cc-idle-probe:${groups}`).digest('base64')}`;

const port = (name: string) => base + services.findIndex((s) => s.name === name);
const selected = services.filter((s) => !only || only.includes(s.name));
const upstreams = Object.fromEntries(
  services.map((s) => [`UPSTREAM_${s.name.toUpperCase().replace(/-/g, '_')}_URL`, `http://127.0.0.1:${port(s.name)}`]),
);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

/** Events a service consumed so far (every group and outcome), from its Prometheus endpoint. */
async function consumed(name: string): Promise<number> {
  const text = await fetch(`http://127.0.0.1:${port(name)}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  let n = 0;
  for (const m of text.matchAll(/^kafka_consumed_events_total\{[^}]*\} (\d+)/gm)) n += Number(m[1]);
  return n;
}

async function main(): Promise<void> {
  const children = new Map<string, ChildProcess>();
  const stopAll = () => {
    for (const c of children.values()) c.kill('SIGTERM');
  };
  process.on('SIGINT', stopAll);
  if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
  try {
    for (const svc of selected) {
      const args = [
        ...(cpuProfDir
          ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir, '--cpu-prof-name', `${svc.name}.cpuprofile`]
          : []),
        '--import',
        'tsx',
        `services/${svc.name}/src/main.ts`,
      ];
      const child = spawn(process.execPath, args, {
        cwd: root,
        env: {
          ...process.env,
          ...upstreams,
          PORT: String(port(svc.name)),
          LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
          CC_ENCRYPTION_KEYS: process.env.CC_ENCRYPTION_KEYS ?? encryptionKeys,
          AUTH_JWKS_URL: svc.name === 'gateway' ? '' : `http://127.0.0.1:${port('gateway')}/.well-known/jwks.json`,
          KAFKA_GROUP_ID: `${groups}.${svc.name}`,
          MONGO_DB: `${groups.replace(/-/g, '_')}_${svc.name.replace(/-/g, '_')}`,
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
        await sleep(500);
      }
    }
    process.stdout.write(
      `[idle] ${selected.length} services ready; settling ${settleS} s, measuring ${windows} × ${windowS} s\n`,
    );
    await sleep(settleS * 1000);
    const pids = [...children].map(([name, c]) => [name, c.pid as number] as const);
    const tracers = straceWanted
      ? pids.map(([name, pid]) => {
          const file = resolve(`${out}.${name}.strace`);
          const tracer = spawn('strace', ['-f', '-c', '-o', file, '-p', String(pid)], { stdio: 'ignore' });
          return { name, file, tracer };
        })
      : [];
    if (tracers.length) await sleep(500);
    const runs = [];
    for (let w = 0; w < windows; w++) {
      const cpu0 = new Map(pids.map(([n, p]) => [n, cpuTicks(p)]));
      const events0 = new Map(await Promise.all(pids.map(async ([n]) => [n, await consumed(n)] as const)));
      const store0 = await storeCommands();
      const t0 = Date.now();
      await sleep(windowS * 1000);
      const seconds = (Date.now() - t0) / 1000;
      const store1 = await storeCommands();
      const rows = [];
      for (const [name, pid] of pids) {
        rows.push({
          service: name,
          cpuPercent: Number((((cpuTicks(pid) - (cpu0.get(name) ?? 0)) / ticksPerSecond / seconds) * 100).toFixed(2)),
          consumedEvents: (await consumed(name)) - (events0.get(name) ?? 0),
        });
      }
      const byCommand: Record<string, number> = {};
      let total = 0;
      for (const [cmd, n] of store1) {
        const d = n - (store0.get(cmd) ?? 0);
        if (d > 0) byCommand[cmd] = d;
        total += d;
      }
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
      runs.push({
        windowSeconds: Number(seconds.toFixed(1)),
        loadAverage: load,
        services: rows,
        storeCommandsPerSecond: Number((total / seconds).toFixed(3)),
        storeCommandsByCommand: byCommand,
      });
      process.stdout.write(`[idle] window ${w + 1}/${windows} (${seconds.toFixed(1)} s, load ${load})\n`);
      for (const r of rows)
        process.stdout.write(
          `[idle]   ${r.service.padEnd(18)} ${r.cpuPercent.toFixed(2)} % CPU, ${r.consumedEvents} events consumed\n`,
        );
      process.stdout.write(`[idle]   store commands in the window: ${JSON.stringify(byCommand)}\n`);
    }
    const syscalls: Record<string, string> = {};
    for (const t of tracers) {
      t.tracer.kill('SIGINT');
      await new Promise((r) => t.tracer.once('exit', r));
      syscalls[t.name] = readFileSync(t.file, 'utf8');
      process.stdout.write(`[idle] ${t.name} system calls:\n${syscalls[t.name]}\n`);
    }
    writeFileSync(out, `${JSON.stringify({ windows: runs, ...(tracers.length ? { syscalls } : {}) }, null, 2)}\n`);
  } finally {
    stopAll();
    await Promise.all(
      [...children.values()].map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)),
    );
  }
}

main().catch((err) => {
  process.stderr.write(`[idle] ${(err as Error).message}\n`);
  process.exitCode = 1;
});

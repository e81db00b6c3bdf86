/**
 * The suite at rest: starts every service (as `./cc start` does), waits until all are ready, lets them
 * settle, then measures for IDLE_SECONDS (30) the CPU % and memory of each service process and of the
 * local stack's processes (FerretDB, PostgreSQL with its backends, Kafka), and the store commands the
 * suite sent meanwhile (FerretDB's metrics; driver heartbeats `hello`/`isMaster`/`ping` counted apart).
 * Writes bench/results/idle.json. Env: IDLE_SECONDS (30), IDLE_SETTLE_SECONDS (10), CC_DATA_DIR,
 * FERRETDB_DEBUG_PORT (8088). Needs ports 8080-8086 free.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { fmt, testInfra, writeBenchResult } from '@cc/testing';
import { services } from '../deploy/local/services';

const root = resolve(__dirname, '..');
const seconds = Number(process.env.IDLE_SECONDS ?? 30);
const settle = Number(process.env.IDLE_SETTLE_SECONDS ?? 10);
const dataDir = process.env.CC_DATA_DIR ?? resolve(root, '.data');
const metricsUrl = `http://127.0.0.1:${process.env.FERRETDB_DEBUG_PORT ?? '8088'}/debug/metrics`;
const heartbeat = new Set(['hello', 'isMaster', 'ismaster', 'ping', 'buildInfo', 'endSessions']);
const ticksPerSecond = 100; // USER_HZ on Linux

function portBusy(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      ok(true);
    });
    s.once('error', () => ok(false));
  });
}

/** CPU ticks (user+system) and proportional memory (Pss, else RSS) of a pid and its children. */
function usage(pid: number): { ticks: number; kb: number } {
  let ticks = 0;
  let kb = 0;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  ticks += Number(f[11]) + Number(f[12]);
  const mem = existsSync(`/proc/${pid}/smaps_rollup`)
    ? readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)/m)
    : readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m);
  kb += Number(mem?.[1] ?? 0);
  for (const child of childrenOf(pid)) {
    const u = usage(child);
    ticks += u.ticks;
    kb += u.kb;
  }
  return { ticks, kb };
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    const file = `/proc/${pid}/task/${t}/children`;
    if (existsSync(file)) out.push(...readFileSync(file, 'utf8').split(' ').filter(Boolean).map(Number));
  }
  return out;
}

function pidFrom(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return pid && existsSync(`/proc/${pid}`) ? pid : undefined;
}

async function storeCommands(): Promise<Map<string, number> | undefined> {
  const text = await fetch(metricsUrl).then(
    (r) => (r.ok ? r.text() : undefined),
    () => undefined,
  );
  if (!text) return undefined;
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/^ferretdb_client_requests_total\{command="([^"]+)"[^}]*\} (\d+)/gm)) {
    counts.set(m[1] as string, (counts.get(m[1] as string) ?? 0) + Number(m[2]));
  }
  return counts;
}

async function main() {
  await testInfra();
  const busy = [];
  for (const s of services) if (await portBusy(s.port)) busy.push(s.port);
  if (busy.length) {
    const why = `skipped: port(s) ${busy.join(', ')} in use (stop ./cc start first)`;
    process.stdout.write(`[bench] idle: ${why}\n`);
    writeBenchResult('idle', { skipped: why }, [{ id: 'idle.store', value: why }]);
    return;
  }
  const env = {
    ...process.env,
    CC_ENCRYPTION_KEYS: process.env.CC_ENCRYPTION_KEYS ?? `bench:${randomBytes(32).toString('base64')}`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  };
  const children = new Map<string, ChildProcess>();
  const stopAll = () => {
    for (const c of children.values()) c.kill('SIGTERM');
  };
  process.on('SIGINT', () => {
    stopAll();
    process.exit(130);
  });
  try {
    for (const s of services) {
      const child = spawn(process.execPath, ['--import', 'tsx', `services/${s.name}/src/main.ts`], {
        cwd: root,
        env: { ...env, PORT: String(s.port) },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.set(s.name, child);
    }
    const deadline = Date.now() + 180_000;
    for (const s of services) {
      for (;;) {
        if (children.get(s.name)?.exitCode !== null) throw new Error(`${s.name} exited before it was ready`);
        const ok = await fetch(`http://127.0.0.1:${s.port}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        if (Date.now() > deadline) throw new Error(`${s.name} not ready after 180 s`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    process.stdout.write(
      `[bench] idle: all ${services.length} services ready; settling ${settle} s, measuring ${seconds} s\n`,
    );
    await new Promise((r) => setTimeout(r, settle * 1000));

    const procs = new Map<string, number>();
    for (const [name, c] of children) if (c.pid) procs.set(name, c.pid);
    const stack: [string, string][] = [
      ['store: ferretdb', 'ferretdb-pg/ferretdb.pid'],
      ['store: postgres', 'postgres/postgres.pid'],
      ['kafka', 'kafka/kafka.pid'],
    ];
    for (const [name, file] of stack) {
      const pid = pidFrom(resolve(dataDir, file));
      if (pid) procs.set(name, pid);
    }
    const before = new Map([...procs].map(([n, pid]) => [n, usage(pid)]));
    const cmdsBefore = await storeCommands();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const elapsed = (performance.now() - t0) / 1000;
    const cmdsAfter = await storeCommands();
    const rows = [];
    const perProcess: Record<string, { cpuPercent: number; memoryMb: number }> = {};
    for (const [name, pid] of procs) {
      const a = before.get(name);
      const b = usage(pid);
      if (!a) continue;
      const cpuPercent = ((b.ticks - a.ticks) / ticksPerSecond / elapsed) * 100;
      const memoryMb = b.kb / 1024;
      perProcess[name] = { cpuPercent: Number(cpuPercent.toFixed(2)), memoryMb: Math.round(memoryMb) };
      rows.push({
        id: `idle.cpu.${name.replace(/[^a-z0-9-]+/g, '-')}`,
        value: `${cpuPercent.toFixed(2)} % CPU, ${Math.round(memoryMb)} MB`,
        beside: `over ${Math.round(elapsed)} s at rest (memory: Pss${name.startsWith('store: postgres') ? ', with its backends' : ''})`,
        numbers: perProcess[name],
      });
      process.stdout.write(`[bench] idle ${name}: ${cpuPercent.toFixed(2)} % CPU, ${Math.round(memoryMb)} MB\n`);
    }
    let commands: Record<string, number> = {};
    if (cmdsBefore && cmdsAfter) {
      for (const [k, v] of cmdsAfter) {
        const d = v - (cmdsBefore.get(k) ?? 0);
        if (d > 0) commands[k] = d;
      }
      const data = Object.entries(commands).filter(([k]) => !heartbeat.has(k));
      const dataTotal = data.reduce((s, [, v]) => s + v, 0);
      const beats = Object.entries(commands).reduce((s, [k, v]) => s + (heartbeat.has(k) ? v : 0), 0);
      rows.push({
        id: 'idle.store',
        value: `${fmt(dataTotal / elapsed)} commands/s${data.length ? ` (${data.map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}`,
        beside: `driver heartbeats ${fmt(beats / elapsed)}/s; over ${Math.round(elapsed)} s`,
        numbers: { commandsPerSecond: Number((dataTotal / elapsed).toFixed(3)), heartbeatsPerSecond: beats / elapsed },
      });
      process.stdout.write(`[bench] idle store commands over ${Math.round(elapsed)} s: ${JSON.stringify(commands)}\n`);
    } else {
      commands = {};
      rows.push({ id: 'idle.store', value: `n/a (no FerretDB metrics at ${metricsUrl})` });
    }
    writeBenchResult('idle', { seconds: elapsed, perProcess, storeCommands: commands }, rows);
  } finally {
    stopAll();
    await Promise.all(
      [...children.values()].map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)),
    );
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

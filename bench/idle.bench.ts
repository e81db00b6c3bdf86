/**
 * The suite at rest: starts every service (as `./cc start` does), waits until all are ready, lets them
 * settle for IDLE_SETTLE_SECONDS (60: their consumers join their groups, and the broker compiles the code those
 * requests run; 10 s after ready Kafka alone was still at 5 % of a core, 2 % at rest), then measures for IDLE_SECONDS (30) the CPU % and memory of each service process and of the
 * local stack's processes (FerretDB, PostgreSQL with its backends, Kafka), and the store commands the
 * suite sent meanwhile (FerretDB's metrics; driver heartbeats `hello`/`isMaster`/`ping` counted apart).
 * Then a contact center at peak: IDLE_BACKLOG (5000; 0 skips) interactions Invoked through the gateway
 * into a queue of an account of its own (made with the demo client `./cc start` seeds) with no agent Ready,
 * IDLE_BACKLOG_SETTLE_SECONDS (60: the work the fill caused, the store's autovacuum after it) to come to
 * rest, and the same measurement again; once the services stopped, that account's documents are removed from the
 * suite's databases. Writes bench/results/idle.json. Env: IDLE_SECONDS (30),
 * IDLE_SETTLE_SECONDS (60), IDLE_BACKLOG, IDLE_BACKLOG_SETTLE_SECONDS, CC_DATA_DIR, FERRETDB_DEBUG_PORT
 * (8088). Needs ports 8080-8086 free.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childrenOf, fmt, ownTicks, testInfra, writeBenchResult } from '@cc/testing';
import mongoose from 'mongoose';
import { services } from '../deploy/local/services';

const root = resolve(__dirname, '..');
const seconds = Number(process.env.IDLE_SECONDS ?? 30);
const settle = Number(process.env.IDLE_SETTLE_SECONDS ?? 60);
const backlogSize = Number(process.env.IDLE_BACKLOG ?? 5000);
const backlogSettle = Number(process.env.IDLE_BACKLOG_SETTLE_SECONDS ?? 60);
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

/** Proportional memory (Pss, else RSS) of one pid in kB; 0 once it is gone. */
function memoryKb(pid: number): number {
  try {
    const mem = existsSync(`/proc/${pid}/smaps_rollup`)
      ? readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)/m)
      : readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m);
    return Number(mem?.[1] ?? 0);
  } catch {
    return 0; // a short-lived child (a PostgreSQL backend) ended between its listing and this read
  }
}

/** CPU ticks (user+system) and proportional memory (Pss, else RSS) of a pid and its children. */
function usage(pid: number): { ticks: number; kb: number } {
  let ticks = ownTicks(pid);
  let kb = memoryKb(pid);
  for (const child of childrenOf(pid)) {
    const u = usage(child);
    ticks += u.ticks;
    kb += u.kb;
  }
  return { ticks, kb };
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

type Row = { id: string; value: string; beside?: string; numbers?: Record<string, number> };

interface Measured {
  seconds: number;
  perProcess: Record<string, { cpuPercent: number; memoryMb: number }>;
  /** Store commands over the window, by command (heartbeats included). */
  commands: Record<string, number>;
  /** The per-process rows and the store row (written for the window with nothing queued). */
  rows: Row[];
}

/** CPU and memory of each process, and the store's commands, over `seconds` at rest. */
async function measure(procs: Map<string, number>, signal: AbortSignal, label = ''): Promise<Measured> {
  const before = new Map([...procs].map(([n, pid]) => [n, usage(pid)]));
  const cmdsBefore = await storeCommands();
  const t0 = performance.now();
  await sleep(seconds * 1000, undefined, { signal });
  const elapsed = (performance.now() - t0) / 1000;
  const cmdsAfter = await storeCommands();
  const rows: Row[] = [];
  const perProcess: Measured['perProcess'] = {};
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
    process.stdout.write(`[bench] idle ${label}${name}: ${cpuPercent.toFixed(2)} % CPU, ${Math.round(memoryMb)} MB\n`);
  }
  const commands: Record<string, number> = {};
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
    process.stdout.write(
      `[bench] idle ${label}store commands over ${Math.round(elapsed)} s: ${JSON.stringify(commands)}\n`,
    );
  } else {
    rows.push({ id: 'idle.store', value: `n/a (no FerretDB metrics at ${metricsUrl})` });
  }
  return { seconds: elapsed, perProcess, commands, rows };
}

/** The sum over every process of the suite (services, store, Kafka), each beside it. */
function totalRow(id: string, m: Measured, total: number, what: string): Row {
  const parts = Object.entries(m.perProcess)
    .sort((a, b) => b[1].cpuPercent - a[1].cpuPercent)
    .map(([n, p]) => `${n} ${p.cpuPercent.toFixed(2)}`);
  process.stdout.write(`[bench] idle in total (${what}): ${total.toFixed(2)} % of one core\n`);
  return {
    id,
    value: `${total.toFixed(2)} % of one core in total over ${Math.round(m.seconds)} s`,
    beside: `${what}; ${parts.join(', ')}`,
    numbers: {
      totalCpuPercent: Number(total.toFixed(2)),
      ...Object.fromEntries(Object.entries(m.perProcess).map(([n, p]) => [n, p.cpuPercent])),
    },
  };
}

/** Request a JSON API of the gateway with a bearer token; throws on anything but 2xx. */
async function call(path: string, token: string, method: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`http://127.0.0.1:${services[0]?.port}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/**
 * The sealing key `./cc start` uses (.data/dev-keys.env, made once): the services run on the suite's own
 * databases, whose secrets and signing keys it sealed (a key of the bench's own would not open them).
 */
function devEncryptionKeys(): string {
  const file = resolve(dataDir, 'dev-keys.env');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `CC_ENCRYPTION_KEYS=dev1:${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  }
  const found = readFileSync(file, 'utf8').match(/^CC_ENCRYPTION_KEYS=(.+)$/m)?.[1];
  if (!found) throw new Error(`${file} holds no CC_ENCRYPTION_KEYS`);
  return found.trim();
}

/** An access token of a client (one scope per token) from the gateway's token endpoint. */
async function clientToken(clientId: string, clientSecret: string, scope: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${services[0]?.port}/Auth/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
      scope,
    }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!res.ok || !body.access_token) throw new Error(`token (${scope}): ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/**
 * An account of the bench's own, made with the demo client `./cc start` seeds (the demo account's queues stay
 * as they were), and its tokens. `created` learns the account's id as soon as it exists (removed even if a later
 * step fails).
 */
async function benchAccount(created: (accountId: string) => void): Promise<{ admin: string; invoke: string }> {
  const root = await clientToken(
    process.env.CC_DEMO_CLIENT_ID ?? 'demo-client',
    process.env.CC_DEMO_CLIENT_SECRET ?? 'demo-secret-change-me',
    'admin',
  );
  const accountId = `idle-bench-${randomBytes(4).toString('hex')}`;
  const made = await call('/admin/accounts', root, 'POST', { accountId, name: 'Idle bench backlog' });
  created(accountId);
  const owner = made.adminClient as { clientId: string; clientSecret: string };
  const admin = await clientToken(owner.clientId, owner.clientSecret, 'admin');
  const client = (await call('/admin/clients', admin, 'POST', {
    name: 'idle bench invoke',
    scopes: ['interactions:write'],
  })) as { clientId: string; clientSecret: string };
  return { admin, invoke: await clientToken(client.clientId, client.clientSecret, 'interactions:write') };
}

/**
 * Removes every document of the bench's account from the suite's databases once the services stopped (releasing
 * them by API would leave the backlog's ended interactions in the suite's history): the next `./cc start` finds the
 * store as before.
 */
async function removeAccount(accountId: string): Promise<number> {
  const conn = await mongoose.createConnection((await testInfra()).mongoUrl).asPromise();
  let removed = 0;
  try {
    const { databases } = await conn.getClient().db().admin().listDatabases({ nameOnly: true });
    for (const s of services) {
      const name = `cc_${s.name.replace(/-/g, '_')}`;
      if (!databases.some((d) => d.name === name)) continue;
      const db = conn.getClient().db(name);
      for (const c of await db.listCollections({}, { nameOnly: true }).toArray()) {
        const coll = db.collection(c.name);
        removed += (await coll.deleteMany({ accountId })).deletedCount;
        removed += (await coll.deleteMany({ _id: accountId } as never)).deletedCount;
      }
    }
  } finally {
    await conn.close();
  }
  return removed;
}

/**
 * A queue of the bench's account with `size` interactions Invoked into it (50 per request, 2 requests at a
 * time), nobody Ready to take them; fails unless every interaction answered `queued`. Returns the seconds the fill
 * took.
 */
async function fillBacklog(
  account: { admin: string; invoke: string },
  size: number,
  signal: AbortSignal,
): Promise<number> {
  const { admin, invoke } = account;
  const run = randomBytes(4).toString('hex');
  await call('/admin/interaction-plans/Idle%20Plan', admin, 'PUT', {
    name: 'Idle Plan',
    applets: [{ type: 'Queue', name: 'Idle queue' }],
  });
  await call('/admin/routes/Idle', admin, 'PUT', { name: 'Idle', interactionPlan: 'Idle Plan' });
  const t0 = performance.now();
  const batches = Math.ceil(size / 50);
  // One worker's failure stops the other (the bench is failing: no more Invokes), as does Ctrl-C.
  const failed = new AbortController();
  const stop = AbortSignal.any([signal, failed.signal]);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < batches; i = next++) {
      const n = Math.min(50, size - i * 50);
      const requests = Array.from({ length: n }, (_, j) => ({
        requestId: `idle-${run}-${i}-${j}`,
        externalId: `idle-${run}-${i}-${j}`,
        route: 'Idle',
      }));
      stop.throwIfAborted();
      const { results } = (await call('/interactions/Invoke', invoke, 'POST', { requests })) as {
        results?: { outcome?: string }[];
      };
      const queued = results?.filter((r) => r.outcome === 'queued').length ?? 0;
      if (queued !== n)
        throw new Error(`Invoke of ${n} answered ${queued} queued: ${JSON.stringify(results).slice(0, 300)}`);
      if ((i + 1) % 20 === 0) process.stdout.write(`[bench] idle: queued ${(i + 1) * 50}/${size}\n`);
    }
  };
  const guarded = () =>
    worker().catch((err) => {
      failed.abort(err);
      throw err;
    });
  await Promise.all([guarded(), guarded()]);
  return Math.round((performance.now() - t0) / 100) / 10;
}

/** Aborted by Ctrl-C: the waits end, the cleanup runs, the bench exits 130. */
const interrupt = new AbortController();
const interrupted = interrupt.signal;

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
    CC_ENCRYPTION_KEYS: process.env.CC_ENCRYPTION_KEYS ?? devEncryptionKeys(),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // As `./cc start` runs the suite: the gateway seeds the demo account and its client (the backlog's tokens).
    CC_DEMO_SEED: process.env.CC_DEMO_SEED ?? 'true',
  };
  const children = new Map<string, ChildProcess>();
  let account: string | undefined; // the bench's own account, once made
  const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;
  // One SIGTERM each: a service handles the first and shuts down; a second would end it mid-shutdown.
  const stopAll = () => {
    for (const c of children.values()) if (running(c) && !c.killed) c.kill('SIGTERM');
  };
  // Ctrl-C stops the waits below; the cleanup in `finally` still removes the bench's account. A second one exits.
  process.on('SIGINT', () => {
    if (interrupted.aborted) process.exit(130);
    process.stdout.write('[bench] idle: interrupted; stopping the services and removing the bench account\n');
    interrupt.abort(new Error('interrupted'));
    stopAll();
  });
  const pause = (ms: number) => sleep(ms, undefined, { signal: interrupted });
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
        const child = children.get(s.name);
        if (!child || !running(child)) throw new Error(`${s.name} exited before it was ready`);
        const ok = await fetch(`http://127.0.0.1:${s.port}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        if (Date.now() > deadline) throw new Error(`${s.name} not ready after 180 s`);
        await pause(500);
      }
    }
    process.stdout.write(
      `[bench] idle: all ${services.length} services ready; settling ${settle} s, measuring ${seconds} s\n`,
    );
    await pause(settle * 1000);

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
    const empty = await measure(procs, interrupted);
    const rows = [...empty.rows];
    const total = (m: Measured) => Object.values(m.perProcess).reduce((a, p) => a + p.cpuPercent, 0);
    rows.push(totalRow('idle.total', empty, total(empty), 'nothing queued'));
    let backlog: (Measured & { queued: number; fillSeconds: number }) | undefined;
    if (backlogSize > 0) {
      const tokens = await benchAccount((accountId) => {
        account = accountId;
      });
      const fillSeconds = await fillBacklog(tokens, backlogSize, interrupted);
      process.stdout.write(
        `[bench] idle: ${backlogSize} interactions queued in ${fillSeconds} s, no agent Ready; settling ${backlogSettle} s, measuring ${seconds} s\n`,
      );
      await pause(backlogSettle * 1000);
      const m = await measure(procs, interrupted, 'with the backlog ');
      backlog = { ...m, queued: backlogSize, fillSeconds };
      rows.push(
        totalRow(
          'idle.backlog',
          m,
          total(m),
          `${backlogSize} interactions queued, no agent Ready (filled in ${fillSeconds} s, then ${backlogSettle} s to settle); nothing queued: ${total(empty).toFixed(2)} %`,
        ),
      );
    }
    writeBenchResult(
      'idle',
      {
        seconds: empty.seconds,
        perProcess: empty.perProcess,
        storeCommands: empty.commands,
        ...(backlog
          ? {
              backlog: {
                queued: backlog.queued,
                fillSeconds: backlog.fillSeconds,
                settleSeconds: backlogSettle,
                seconds: backlog.seconds,
                perProcess: backlog.perProcess,
                storeCommands: backlog.commands,
              },
            }
          : {}),
      },
      rows,
    );
  } finally {
    stopAll();
    await Promise.all(
      [...children.values()].map((c) => (running(c) ? new Promise((r) => c.once('exit', r)) : undefined)),
    );
    if (account) {
      const removed = await removeAccount(account);
      process.stdout.write(`[bench] idle: removed the backlog account ${account} (${removed} documents)\n`);
    }
  }
}

main().catch((err) => {
  if (interrupted.aborted) process.exit(130);
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});

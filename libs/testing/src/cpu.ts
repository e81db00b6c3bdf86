import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * A /proc file's text, or null when it cannot be read: a process can end between being listed and being read (a
 * PostgreSQL backend often does), so a check for the file first still races.
 */
function procText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** CPU ticks (user+system) of one pid, without its children (0 when it is gone or /proc is not there). */
export function ownTicks(pid: number): number {
  const stat = procText(`/proc/${pid}/stat`);
  if (stat === null) return 0;
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** The pids of a process's children that are alive now. */
export function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // gone, or no /proc
  }
  return tasks.flatMap(
    (task) => procText(`/proc/${pid}/task/${task}/children`)?.split(' ').filter(Boolean).map(Number) ?? [],
  );
}

/** CPU ticks (user+system) a pid's children used that exited and were waited for (stat's cutime, cstime). */
function reapedTicks(pid: number): number {
  const stat = procText(`/proc/${pid}/stat`);
  if (stat === null) return 0;
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[13]) + Number(f[14]);
}

/**
 * CPU ticks (user+system) of a pid and its children: those alive now by their own count, those gone by their
 * parent's (a store connection closed in a window took its ticks with it, and the store's CPU came out negative).
 */
export function ticksOf(pid: number): number {
  return ownTicks(pid) + reapedTicks(pid) + childrenOf(pid).reduce((a, c) => a + ticksOf(c), 0);
}

/** CPU ticks the whole machine spent working (every core: user, nice, system, irq, softirq), from /proc/stat. */
export function machineTicks(): number {
  if (!existsSync('/proc/stat')) return 0;
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  // user nice system idle iowait irq softirq steal …: idle, iowait and the hypervisor's steal are not work here.
  return [0, 1, 2, 5, 6].reduce((a, i) => a + (cpu[i] ?? 0), 0);
}

/** The processes of the local stack named by these pid files (under `CC_DATA_DIR`, default `.data`), those running. */
export function stackPids(files: string[]): number[] {
  const dataDir = process.env.CC_DATA_DIR || resolve(__dirname, '../../../.data');
  return files.flatMap((f) => {
    const file = resolve(dataDir, f);
    if (!existsSync(file)) return [];
    const pid = Number(readFileSync(file, 'utf8').trim());
    return pid && existsSync(`/proc/${pid}`) ? [pid] : [];
  });
}

/** The local store's processes (FerretDB, PostgreSQL with its backends), when the local stack runs them. */
export function storePids(): number[] {
  return stackPids(['ferretdb-pg/ferretdb.pid', 'postgres/postgres.pid']);
}

/**
 * Milliseconds of CPU the local store's processes used since this call, read by the function it returns; null when
 * the store is not the local stack's (an external MongoDB: its CPU is not on this machine's /proc).
 */
export function storeCpuMeter(): (() => number) | null {
  const pids = storePids();
  if (!pids.length) return null;
  const read = () => pids.reduce((a, p) => a + ticksOf(p), 0);
  const start = read();
  return () => (read() - start) * 10;
}

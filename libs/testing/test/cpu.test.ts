import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childrenOf, ownTicks, stackPids, storeCpuMeter, ticksOf } from '../src/cpu';

const linux = process.platform === 'linux';

/** Burns this process's CPU until `process.cpuUsage` counts `ms` more (user and system). */
function burn(ms: number): void {
  const start = process.cpuUsage();
  let x = 0;
  for (;;) {
    for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + i);
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) break;
  }
}

/** A Node child that burns `ms` of CPU, says `burnt`, then waits (or exits, with `exit`). */
function burner(ms: number, then: 'wait' | 'exit') {
  const code = `
    const s = process.cpuUsage();
    let x = 0;
    for (;;) { for (let i = 0; i < 10000; i++) x += Math.sqrt(x + i); const u = process.cpuUsage(s); if ((u.user + u.system) / 1000 >= ${ms}) break; }
    process.send('burnt');
    ${then === 'exit' ? 'process.disconnect();' : 'setTimeout(() => {}, 60000);'}`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  const burnt = new Promise<void>((resolve) => child.once('message', () => resolve()));
  return { child, burnt };
}

(linux ? describe : describe.skip)('process CPU from /proc', () => {
  it('counts the CPU this process used, as the process itself does (10 ms ticks, user and system)', () => {
    const before = ownTicks(process.pid);
    const usage0 = process.cpuUsage();
    burn(150);
    const after = ownTicks(process.pid);
    const usage = process.cpuUsage(usage0);
    const usedTicks = (usage.user + usage.system) / 10_000;
    // The kernel's ticks and Node's microseconds round differently: within a few ticks of each other.
    expect(Math.abs(after - before - usedTicks)).toBeLessThanOrEqual(3);
    const own = ownTicks(process.pid);
    expect(ticksOf(process.pid)).toBeGreaterThanOrEqual(own);
  });

  it('finds a child process, and counts its CPU with its parent’s', async () => {
    const { child, burnt } = burner(200, 'wait');
    try {
      await burnt;
      expect(childrenOf(process.pid)).toContain(child.pid);
      const childOwn = ownTicks(child.pid as number);
      expect(childOwn).toBeGreaterThanOrEqual(15);
      const parentOwn = ownTicks(process.pid);
      expect(ticksOf(process.pid) - parentOwn).toBeGreaterThanOrEqual(childOwn);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('still counts a child’s CPU once it has exited and been waited for', async () => {
    const { child, burnt } = burner(200, 'exit');
    await burnt;
    const childOwn = ownTicks(child.pid as number);
    expect(childOwn).toBeGreaterThanOrEqual(15);
    await new Promise((resolve) => child.once('exit', resolve));
    expect(childrenOf(process.pid)).not.toContain(child.pid);
    const parentOwn = ownTicks(process.pid);
    expect(ticksOf(process.pid) - parentOwn).toBeGreaterThanOrEqual(childOwn);
  });

  it('reads the stack’s pid files: a running pid is listed, a stale or missing one is not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-cpu-'));
    const saved = process.env.CC_DATA_DIR;
    try {
      process.env.CC_DATA_DIR = dir;
      writeFileSync(join(dir, 'running.pid'), `${process.pid}\n`);
      writeFileSync(join(dir, 'stale.pid'), '999999999\n');
      expect(stackPids(['running.pid', 'stale.pid', 'missing.pid'])).toEqual([process.pid]);
      // No local store here: its meter is null (an external MongoDB's CPU is not on this machine).
      expect(storeCpuMeter()).toBeNull();
    } finally {
      if (saved === undefined) delete process.env.CC_DATA_DIR;
      else process.env.CC_DATA_DIR = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

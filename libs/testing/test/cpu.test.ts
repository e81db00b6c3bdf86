import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childrenOf, ownTicks, stackPids, storeCpuMeter, ticksOf } from '../src/cpu';

const linux = process.platform === 'linux';

(linux ? describe : describe.skip)('process CPU from /proc', () => {
  it('counts the CPU this process burns', () => {
    const before = ownTicks(process.pid);
    const until = Date.now() + 120;
    let x = 0;
    while (Date.now() < until) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);
    // 120 ms of work is about 12 ticks of 10 ms; the scheduler may round a few away.
    expect(ownTicks(process.pid) - before).toBeGreaterThanOrEqual(5);
    expect(ticksOf(process.pid)).toBeGreaterThanOrEqual(ownTicks(process.pid));
  });

  it('finds a child process, and counts its CPU with its parent’s', async () => {
    const child = spawn(process.execPath, [
      '-e',
      'const u = Date.now() + 400; while (Date.now() < u); setTimeout(() => {}, 5000)',
    ]);
    try {
      await new Promise((r) => setTimeout(r, 600));
      expect(childrenOf(process.pid)).toContain(child.pid);
      expect(ticksOf(process.pid) - ownTicks(process.pid)).toBeGreaterThanOrEqual(ownTicks(child.pid as number));
      expect(ownTicks(child.pid as number)).toBeGreaterThanOrEqual(10);
    } finally {
      child.kill('SIGKILL');
    }
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

import { spawn } from 'node:child_process';
import { ended, stopProcess } from '../src/process';

/** A Node child that answers SIGTERM as told: exits, or ignores it. */
function child(onTerm: 'exit' | 'ignore') {
  const code =
    onTerm === 'exit'
      ? "process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000); process.send?.('up')"
      : "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); process.send?.('up')";
  const c = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  return new Promise<typeof c>((resolve) => c.once('message', () => resolve(c)));
}

describe('stopProcess', () => {
  it('a child that shuts down on SIGTERM ends with it', async () => {
    const c = await child('exit');
    await stopProcess(c, 10_000);
    expect(ended(c)).toBe(true);
    expect(c.exitCode).toBe(0);
  });

  it('a child that ignores SIGTERM is killed after the grace time', async () => {
    const c = await child('ignore');
    const t0 = Date.now();
    await stopProcess(c, 300);
    expect(ended(c)).toBe(true);
    expect(c.signalCode).toBe('SIGKILL');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  it('a child that has already ended (even by a signal) returns at once', async () => {
    const c = await child('ignore');
    c.kill('SIGKILL');
    await new Promise((r) => c.once('exit', r));
    expect(c.exitCode).toBeNull(); // ended by a signal: exitCode stays null
    await stopProcess(c, 60_000);
    expect(ended(c)).toBe(true);
  });
});

import type { ChildProcess } from 'node:child_process';

/** Whether a child process has ended (by exiting or by a signal). */
export function ended(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves when the child has ended, or after `ms` (false then). */
function endedWithin(child: ChildProcess, ms: number): Promise<boolean> {
  if (ended(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(ended(child));
    }, ms);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

/**
 * Stops a child process: SIGTERM, up to `graceMs` for it to shut down, then SIGKILL and a few seconds for the
 * kernel to end it. Never waits forever, whatever state the child is in.
 */
export async function stopProcess(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (ended(child)) return;
  child.kill('SIGTERM');
  if (await endedWithin(child, graceMs)) return;
  child.kill('SIGKILL');
  await endedWithin(child, 5_000);
}

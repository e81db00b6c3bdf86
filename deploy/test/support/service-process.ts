import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '@cc/testing';
import { root } from './manifests';

const run = promisify(execFile);

/** A service started as its own process with a given environment (nothing inherited but PATH). */
export class ServiceProcess {
  private exited: { code: number | null; signal: string | null } | undefined;

  private constructor(
    readonly name: string,
    readonly url: string,
    readonly logFile: string,
    private readonly child: ChildProcess,
  ) {
    child.on('exit', (code, signal) => {
      this.exited = { code, signal };
    });
  }

  /** Starts `services/<name>` with `command` (default: its TypeScript entry through tsx). */
  static start(
    name: string,
    env: Record<string, string>,
    logDir: string,
    command: string[] = ['--import', 'tsx', `services/${name}/src/main.ts`],
    cwd = root,
  ): ServiceProcess {
    mkdirSync(logDir, { recursive: true });
    const logFile = resolve(logDir, `${name}.log`);
    const out = openSync(logFile, 'w');
    const child = spawn(process.execPath, command, {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', out, out],
    });
    return new ServiceProcess(name, `http://127.0.0.1:${env.PORT}`, logFile, child);
  }

  /** The last lines of its log, for failure messages. */
  tail(lines = 15): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  /** Waits until `path` answers 200; fails early, with its log, when the process exits. */
  async waitFor(path: string, timeoutMs = 150_000): Promise<void> {
    await eventually(
      async () => {
        if (this.exited) {
          throw new Error(
            `${this.name} exited (code ${this.exited.code}, signal ${this.exited.signal}):\n${this.tail()}`,
          );
        }
        return fetch(`${this.url}${path}`).then(
          (r) => r.status === 200,
          () => false,
        );
      },
      { timeoutMs, intervalMs: 250, what: `${this.name} ${path}`, accept: (v) => v === true },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- ${this.name} log:\n${this.tail()}`);
    });
  }

  /** SIGTERM, then SIGKILL if it has not exited within the deadline. */
  async stop(deadlineMs = 30_000): Promise<void> {
    if (this.exited || this.child.exitCode !== null) return;
    const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), deadlineMs);
    await gone;
    clearTimeout(timer);
  }
}

/** Runs the gateway's operator CLI with an environment; returns its JSON output. */
export async function gatewayCli(env: Record<string, string>, args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'services/gateway/src/cli.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return JSON.parse(stdout);
}

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { Config } from '../../src/config';

const root = resolve(__dirname, '../../../..');

/** Runs the gateway CLI as a real process against a gateway's store; resolves with exit code and output. */
export function runCliProcess(
  config: Config,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/gateway/src/cli.ts', ...args], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        MONGO_URL: config.MONGO_URL,
        MONGO_DB: config.MONGO_DB,
        CC_ENCRYPTION_KEYS: config.CC_ENCRYPTION_KEYS,
        SIGNING_KEY_ACTIVATION_DELAY_MS: String(config.SIGNING_KEY_ACTIVATION_DELAY_MS),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('error', fail);
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

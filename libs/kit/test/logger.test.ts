import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { CapturedLogs } from '../../testing/src/logs';
import { batchedStdout, createLogger } from '../src/logger';

describe('createLogger', () => {
  it('writes JSON lines with the service name and redacts secrets and phone numbers', () => {
    const logs = new CapturedLogs();
    const log = createLogger('registry', 'info', logs);
    log.info(
      { provider: { name: 'crm', headers: { Authorization: 'Basic abc' }, secret: 's3' }, call: { clid: '+441234' } },
      'x',
    );
    const line = JSON.parse(logs.lines[0] ?? '{}');
    expect(line).toMatchObject({ level: 'info', service: 'registry', msg: 'x' });
    expect(logs.text()).not.toMatch(/Basic abc|s3|\+441234/);
  });
});

describe('log redaction (issue 19 item 3)', () => {
  it('censors sensitive names at any depth, in arrays, in header maps and in URLs held by any field', () => {
    const logs = new CapturedLogs();
    const log = createLogger('gateway', 'info', logs);
    log.info(
      {
        a: { b: { c: { d: { password: 'S1', token: 'S2', list: [{ apiKey: 'S3' }, { 'x-api-key': 'S4' }] } } } },
        upstream: { request: { headers: { Authorization: 'Bearer S5', cookie: 'S6', 'proxy-authorization': 'S7' } } },
        target: '/x?authorization=S8&key=S9&code=SA&sig=SB&client_secret=SC&ok=visible',
        deep: { e: { f: { g: { url: 'https://h/p?access_token=SD&page=2' } } } },
        keep: { name: 'crm', page: 3 },
      },
      'nested',
    );
    const text = logs.text();
    for (let i = 1; i <= 13; i++) expect(text).not.toContain(`S${i.toString(16).toUpperCase()}`);
    expect(text).toContain('ok=visible');
    expect(text).toContain('page=2');
    expect(JSON.parse(logs.lines[0] ?? '{}').keep).toEqual({ name: 'crm', page: 3 });
  });
});

describe('batchedStdout', () => {
  it('gets lines out without an exit or a full buffer (flush after a line), and the rest at exit', () => {
    // A child process whose stdout is a file: after the flush interval it reads that file itself (what has left).
    const out = resolve(mkdtempSync(resolve(tmpdir(), 'kit-log-')), 'stdout.log');
    const fd = openSync(out, 'w');
    const script = [
      "const fs = require('node:fs');",
      "const { createLogger, batchedStdout } = require('./src/logger');",
      "const log = createLogger('t', 'info', batchedStdout(4096, 50));",
      "log.info('early');",
      "setTimeout(() => { fs.writeSync(2, fs.readFileSync(process.env.OUT, 'utf8')); log.info('late'); process.exit(0); }, 500);",
    ].join('\n');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: resolve(__dirname, '..'),
      env: { ...process.env, OUT: out },
      stdio: ['ignore', fd, 'pipe'],
      encoding: 'utf8',
      timeout: 30_000,
    });
    closeSync(fd);
    expect(run.status).toBe(0);
    const msgs = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs(run.stderr)).toEqual(['early']);
    expect(msgs(readFileSync(out, 'utf8'))).toEqual(['early', 'late']);
  });

  it('arms no timer while no line waits: an idle process is not woken to flush nothing', () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const stream = batchedStdout(4096, 50);
      expect(jest.getTimerCount()).toBe(0); // sonic-boom's periodicFlush kept an interval: 4 wake-ups/s at 250 ms
      stream.write(''); // a line (empty: nothing reaches the test's stdout)
      stream.write('');
      expect(jest.getTimerCount()).toBe(1); // one flush for every line waiting
      jest.advanceTimersByTime(50);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(__dirname, '../../..');
// Every folder of services/ (services/README.md is not one).
const serviceNames = readdirSync(resolve(root, 'services'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

describe.each(serviceNames)('service %s', (name) => {
  it('exits non-zero naming every missing or malformed required variable', () => {
    const env = { PATH: process.env.PATH, PORT: 'not-a-port', MONGO_URL: 'not a url' };
    const run = spawnSync(process.execPath, ['--import', 'tsx', `services/${name}/src/main.ts`], {
      cwd: root,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(78);
    const line = JSON.parse(run.stderr.trim().split('\n').pop() ?? '{}');
    expect(line.msg).toBe('invalid configuration');
    const keys = (line.problems as string[]).map((p) => p.split(':')[0]).sort();
    expect(keys).toEqual(expect.arrayContaining(['KAFKA_BROKERS', 'MONGO_URL', 'PORT']));
    expect(line.problems.find((p: string) => p.startsWith('KAFKA_BROKERS'))).toMatch(/missing/);
    expect(line.problems.find((p: string) => p.startsWith('PORT'))).toMatch(/malformed/);
  }, 60_000);
});

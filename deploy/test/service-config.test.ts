import { spawnSync } from 'node:child_process';
import { serviceNames } from './support/config-requirements';
import { root } from './support/manifests';

// Each service's entry point, started as its own process with a broken environment, refuses to start (exit 78)
// and names every bad variable. Seven processes booting tsx: a deployment check, not a unit test.
describe.each(serviceNames())('service %s', (name) => {
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

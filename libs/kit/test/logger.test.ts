import { CapturedLogs } from '../../testing/src/logs';
import { createLogger } from '../src/logger';

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

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

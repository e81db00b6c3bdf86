import { freshName } from '@cc/testing';
import type { Client } from '../support/client';
import { type RegistryUnderTest, startRegistry } from '../support/registry';

let registry: RegistryUnderTest;
let api: Client;

beforeAll(async () => {
  registry = await startRegistry({ ENDPOINT_ALLOWLIST: '127.0.0.1,localhost,10.10.0.0/16' });
  api = await registry.as(freshName('dev').toLowerCase().replace(/_/g, '-'));
}, 90_000);
afterAll(async () => {
  await registry?.stop();
});

describe('development allowlist (ENDPOINT_ALLOWLIST)', () => {
  it('lets the listed hosts and ranges through and still refuses everything else that is not public', async () => {
    let n = 0;
    const attempt = (endpoint: string) => api.register({ provider: `dev-${++n}`, endpoint, agentactionspermitted: {} });
    for (const endpoint of ['https://127.0.0.1:9443/hook', 'https://localhost:9443/hook', 'https://10.10.3.4/hook']) {
      expect({ endpoint, status: (await attempt(endpoint)).status }).toEqual({ endpoint, status: 201 });
    }
    for (const endpoint of ['https://10.11.0.1/hook', 'https://169.254.169.254/', 'https://[::1]/hook']) {
      const reply = await attempt(endpoint);
      expect({ endpoint, status: reply.status, code: reply.body.code }).toEqual({
        endpoint,
        status: 400,
        code: 'PROVIDER.ENDPOINT_NOT_ALLOWED',
      });
    }
    expect((await attempt('http://127.0.0.1/hook')).status).toBe(400);
    expect(registry.logs.text()).toContain('ENDPOINT_ALLOWLIST is set');
  });
});

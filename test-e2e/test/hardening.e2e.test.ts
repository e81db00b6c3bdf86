import { readFileSync } from 'node:fs';
import { call, createTenant, type Tenant } from '../src/gateway.client';
import { e2eServices, type ServiceName } from '../src/suite';

// Issue 19 through the running suite: what an outside review found, reproduced end to end.

/** Local addresses of the listening TCP sockets on a port, from the kernel's tables (Linux). */
function listeningAddresses(port: number): string[] {
  const out: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue; // no IPv6 table on this host
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [hexAddr = '', hexPort = ''] = local.split(':');
      if (Number.parseInt(hexPort, 16) === port) out.push(decodeAddress(hexAddr));
    }
  }
  return out;
}

/** /proc/net's address: IPv4 as one little-endian word, IPv6 as four. */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((w) => (w.match(/../g) ?? []).reverse().map((b) => Number.parseInt(b, 16)));
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return `::ffff:${bytes.slice(12).join('.')}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}

const loopback = (a: string) => a.startsWith('127.') || a.startsWith('::ffff:127.') || a === '0:0:0:0:0:0:0:1';

describe('issue 19 end to end', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant('hardening', ['interactions:write', 'agent', 'stats']);
  });

  it('item 9: the services behind the gateway listen on loopback only; the gateway on every interface', () => {
    const behind = (Object.keys(e2eServices) as ServiceName[]).filter((n) => n !== 'gateway');
    for (const name of behind) {
      const addresses = listeningAddresses(e2eServices[name]);
      expect({ name, addresses }).toEqual({ name, addresses: expect.arrayContaining([expect.any(String)]) });
      expect({ name, exposed: addresses.filter((a) => !loopback(a)) }).toEqual({ name, exposed: [] });
    }
    expect(listeningAddresses(e2eServices.gateway).some((a) => !loopback(a))).toBe(true);
  });

  it.each([
    '/admin/agents?page=1e309',
    '/admin/agents?page=Infinity',
    '/admin/agents?limit=Infinity',
    '/admin/deliveries?page=1e309',
    '/admin/providers?page=0x10',
    '/admin/clients?limit=1e3',
  ])('item 1: %s is a 400 naming the parameter', async (path) => {
    const res = await tenant.api<{ code: string; errors: { pointer: string }[] }>('admin', { method: 'GET', path });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('REQUEST.VALIDATION');
    expect(res.body.errors[0]?.pointer).toMatch(/^\/query\/(page|limit)$/);
  });

  it('item 10: replaying the deliveries of a provider the account does not have is a 404', async () => {
    const res = await tenant.api<{ code: string }>('admin', {
      method: 'POST',
      path: '/admin/providers/NoSuchProvider/deliveries/replay',
      json: { since: '2024-05-01T00:00:00Z' },
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOTIFIER.PROVIDER_NOT_FOUND');
  });

  it('item 8: a JSON body that is not valid UTF-8 is a 400 at the owning service, stored nowhere', async () => {
    const body = Buffer.concat([
      Buffer.from('{"provider":"bad-'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('","agentactionspermitted":{"release":1}}'),
    ]);
    const res = await tenant.api<{ code: string }>('interactions:write', {
      method: 'POST',
      path: '/interactions/Register',
      body,
      contentType: 'application/json',
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('REQUEST.MALFORMED_JSON');
    const listed = await tenant.api<{ items: { provider: string }[] }>('admin', {
      method: 'GET',
      path: '/admin/providers',
    });
    expect(listed.status).toBe(200);
    expect(listed.body.items.filter((p) => p.provider.startsWith('bad-'))).toEqual([]);
  });

  it('item 5: a 64 KB token is a 431 problem at the gateway', async () => {
    const res = await call({ method: 'GET', path: '/stats/agent-activities', token: 'a'.repeat(64 * 1024) });
    expect(res.status).toBe(431);
    expect(res.contentType).toMatch(/application\/problem\+json/);
  });
});

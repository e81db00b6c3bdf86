import { dnsResolver } from '../../src/clients/dns.client';
import { HostResolutionError } from '../../src/domain/endpoint-policy';

const failWith = (code: string) => async () => {
  throw Object.assign(new Error(code), { code });
};

describe('dnsResolver', () => {
  it('returns every address of the answer', async () => {
    const resolve = dnsResolver(1000, async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::248', family: 6 },
    ]);
    await expect(resolve('example.com')).resolves.toEqual(['93.184.216.34', '2606:2800:220:1::248']);
  });

  it('gives up after the timeout', async () => {
    const resolve = dnsResolver(50, () => new Promise(() => undefined));
    const started = Date.now();
    const err = await resolve('slow.example').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostResolutionError);
    expect((err as HostResolutionError).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('maps not-found codes and a name getaddrinfo refuses (EINVAL) to not-found and other failures to unavailable', async () => {
    for (const code of ['ENOTFOUND', 'ENODATA', 'EINVAL']) {
      await expect(dnsResolver(1000, failWith(code))('x')).rejects.toMatchObject({ reason: 'not-found' });
    }
    await expect(dnsResolver(1000, failWith('EAI_AGAIN'))('x')).rejects.toMatchObject({ reason: 'unavailable' });
  });
});

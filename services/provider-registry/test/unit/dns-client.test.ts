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

  /** A lookup answering each call from a script: an address list, an error code, or 'hang' (never answers). */
  const scripted = (script: (string[] | string)[]) => {
    const calls: number[] = [];
    const started = Date.now();
    const lookupAll = async () => {
      calls.push(Date.now() - started);
      const step = script[calls.length - 1] ?? 'hang';
      if (step === 'hang') return new Promise<never>(() => undefined);
      if (typeof step === 'string') throw Object.assign(new Error(step), { code: step });
      return step.map((address) => ({ address, family: 4 }));
    };
    return { calls, lookupAll };
  };

  it('asks again at half the budget when the first lookup has not answered, and takes the first answer', async () => {
    const { calls, lookupAll } = scripted(['hang', ['93.184.216.34']]);
    await expect(dnsResolver(400, lookupAll)('lost-packet.example')).resolves.toEqual(['93.184.216.34']);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toBeGreaterThanOrEqual(190);
  });

  it('asks again at once after a transient failure (EAI_AGAIN), and only once', async () => {
    const retried = scripted(['EAI_AGAIN', ['93.184.216.34']]);
    await expect(dnsResolver(10_000, retried.lookupAll)('flaky.example')).resolves.toEqual(['93.184.216.34']);
    expect(retried.calls).toHaveLength(2);
    expect(retried.calls[1]).toBeLessThan(1000);

    const down = scripted(['EAI_AGAIN', 'EAI_AGAIN', ['93.184.216.34']]);
    await expect(dnsResolver(10_000, down.lookupAll)('down.example')).rejects.toMatchObject({
      reason: 'unavailable',
      message: 'DNS lookup failed: EAI_AGAIN',
    });
    expect(down.calls).toHaveLength(2);
  });

  it('answers not-found at the first lookup that says so, without asking again', async () => {
    const { calls, lookupAll } = scripted(['ENOTFOUND', ['93.184.216.34']]);
    await expect(dnsResolver(10_000, lookupAll)('nx.example')).rejects.toMatchObject({ reason: 'not-found' });
    expect(calls).toHaveLength(1);
  });

  it('waits for the first lookup until the deadline when the second fails transiently', async () => {
    const { calls, lookupAll } = scripted(['hang', 'EAI_AGAIN']);
    const err = await dnsResolver(300, lookupAll)('slow.example').catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'timeout', message: 'no DNS answer within 300 ms' });
    expect(calls).toHaveLength(2);
  });
});

import { dnsResolver, type LookupAll } from '../../src/clients/dns.client';
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

  type Step = string[] | string | { after: number; answer: string[] };
  /**
   * A lookup answering each call from a script: an address list, an error code, 'hang' (answers only when
   * `release()` is called, with nothing), or an address list after a delay.
   */
  const scripted = (script: Step[]) => {
    const calls: number[] = [];
    const hanging: (() => void)[] = [];
    const started = Date.now();
    const lookupAll: LookupAll = async () => {
      calls.push(Date.now() - started);
      const step = script[calls.length - 1] ?? 'hang';
      if (step === 'hang') return new Promise((ok) => hanging.push(() => ok([])));
      if (typeof step === 'string') throw Object.assign(new Error(step), { code: step });
      if (Array.isArray(step)) return step.map((address) => ({ address, family: 4 }));
      await new Promise((ok) => setTimeout(ok, step.after));
      return step.answer.map((address) => ({ address, family: 4 }));
    };
    const release = () => {
      for (const ok of hanging.splice(0)) ok();
    };
    return { calls, lookupAll, release };
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

  it("takes the first lookup's late answer when the second failed", async () => {
    const { calls, lookupAll } = scripted([{ after: 300, answer: ['93.184.216.34'] }, 'EAI_AGAIN']);
    await expect(dnsResolver(400, lookupAll)('late.example')).resolves.toEqual(['93.184.216.34']);
    expect(calls).toHaveLength(2);
  });

  it('answers a malformed lookup result or a failure without a code as unavailable, after asking again', async () => {
    let oddCalls = 0;
    const odd: LookupAll = async () => {
      oddCalls++;
      return {} as never;
    };
    await expect(dnsResolver(10_000, odd)('odd.example')).rejects.toMatchObject({
      reason: 'unavailable',
      message: 'DNS lookup failed: no address list',
    });
    expect(oddCalls).toBe(2);
    let calls = 0;
    const nullError: LookupAll = async () => {
      calls++;
      throw null;
    };
    await expect(dnsResolver(10_000, nullError)('null.example')).rejects.toMatchObject({
      reason: 'unavailable',
      message: 'DNS lookup failed: no answer',
    });
    expect(calls).toBe(2);
  });

  it('answers a burst of registrations whose lookups all answer, however many run at once', async () => {
    const { calls, lookupAll } = scripted(Array.from({ length: 8 }, () => ['93.184.216.34']));
    const resolve = dnsResolver(10_000, lookupAll, 3);
    const hosts = Array.from({ length: 8 }, (_, i) => `h${i}.example`);
    await expect(Promise.all(hosts.map(resolve))).resolves.toEqual(hosts.map(() => ['93.184.216.34']));
    expect(calls).toHaveLength(8);
  });

  it('bounds the lookups left running: no second lookup beside abandoned ones, then 503 at once until they return', async () => {
    const { calls, lookupAll, release } = scripted(['hang', 'hang', 'hang', ['93.184.216.34']]);
    const resolve = dnsResolver(200, lookupAll, 3);
    expect(await resolve('a.example').catch((e) => e)).toMatchObject({ reason: 'timeout' });
    expect(calls).toHaveLength(2); // asked again at half the budget: two lookups left running
    expect(await resolve('b.example').catch((e) => e)).toMatchObject({ reason: 'timeout' });
    expect(calls).toHaveLength(3); // two abandoned already: no second lookup
    const started = Date.now();
    expect(await resolve('c.example').catch((e) => e)).toMatchObject({
      reason: 'unavailable',
      message: '3 DNS lookups are still waiting for an answer',
    });
    expect(Date.now() - started).toBeLessThan(100);
    expect(calls).toHaveLength(3);
    release();
    await new Promise((ok) => setImmediate(ok));
    await expect(resolve('d.example')).resolves.toEqual(['93.184.216.34']); // they returned: it asks
    expect(calls).toHaveLength(4);
  });

  it('starts no lookup after the registration was answered, when an abandoned one fails transiently later', async () => {
    let fail: (() => void) | undefined;
    let calls = 0;
    const lookupAll: LookupAll = () => {
      calls++;
      return new Promise((_, no) => {
        fail = () => no(Object.assign(new Error('EAI_AGAIN'), { code: 'EAI_AGAIN' }));
      });
    };
    const resolve = dnsResolver(100, lookupAll, 1); // one abandoned lookup is the bound: no second lookup at all
    expect(await resolve('stuck.example').catch((e) => e)).toMatchObject({ reason: 'timeout' });
    expect(calls).toBe(1);
    fail?.(); // glibc gives up on the stuck name server long after the answer
    await new Promise((ok) => setImmediate(ok));
    expect(calls).toBe(1);
  });

  it('waits for the first lookup until the deadline when the second fails transiently', async () => {
    const { calls, lookupAll } = scripted(['hang', 'EAI_AGAIN']);
    const err = await dnsResolver(300, lookupAll)('slow.example').catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'timeout', message: 'no DNS answer within 300 ms' });
    expect(calls).toHaveLength(2);
  });
});

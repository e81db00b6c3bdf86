import { eventually } from '@cc/testing';
import { deliveryIdFor } from '../../src/domain/notification';
import { NotifierHarness, newSigningSecret } from '../helpers/notifier-harness';
import { ProviderEndpoint } from '../helpers/provider-endpoint.server';

jest.setTimeout(120_000);

const account = `iso-${Date.now().toString(36)}`;
const resetMs = 1500;
let h: NotifierHarness;
const endpoints: ProviderEndpoint[] = [];

async function registered(provider: string): Promise<ProviderEndpoint> {
  const secret = newSigningSecret();
  const ep = await ProviderEndpoint.start(h.tls, [secret]);
  endpoints.push(ep);
  await h.publishProvider({
    accountId: account,
    provider,
    endpoint: ep.url,
    secrets: [{ secret, validUntil: null }],
    version: 1,
  });
  await eventually(
    async () =>
      (await h.api('GET', '/admin/breakers', account)).body.items.some(
        (b: { provider: string }) => b.provider === provider,
      ),
    { what: `provider ${provider} known`, timeoutMs: 30_000 },
  );
  return ep;
}

async function breaker(provider: string) {
  const res = await h.api('GET', '/admin/breakers', account);
  return res.body.items.find((b: { provider: string }) => b.provider === provider);
}

async function assign(provider: string): Promise<string> {
  const it = h.interaction(account, provider);
  await h.publishInteraction([it.queued, it.assigned]);
  return deliveryIdFor(it.assigned.id, 'AssignToAgent');
}

beforeAll(async () => {
  h = await NotifierHarness.create({
    DELIVERY_SCHEDULE: '0,300ms,600ms,1200ms,2400ms,4800ms,9600ms',
    BREAKER_FAILURE_THRESHOLD: '3',
    BREAKER_RESET_MS: String(resetMs),
    ENDPOINT_CONCURRENCY: '2',
  });
  await h.start();
});

afterAll(async () => {
  for (const ep of endpoints) {
    ep.releaseHanging();
    await ep.down();
  }
  await h?.close();
});

describe('isolation per provider endpoint', () => {
  it('opens the breaker after consecutive failures, sends nothing while open, half-opens with one trial, then closes', async () => {
    const ep = await registered('Flaky');
    // Requests 1–3 fail (the breaker opens), the first half-open trial (4) fails too (it re-opens), then all succeed.
    ep.reply = (_r, n) => (n <= 4 ? { status: 500 } : { status: 200 });
    const first = await assign('Flaky');
    const opened = await eventually(
      async () => {
        const b = await breaker('Flaky');
        return b?.state === 'open' ? b : undefined;
      },
      { what: 'breaker open' },
    );
    expect(opened).toMatchObject({ state: 'open', failures: 3 });
    expect(ep.received).toHaveLength(3);
    const openedAt = Date.parse(opened.openedAt);
    const metrics = await (await fetch(`${h.runtime?.url()}/metrics`)).text();
    expect(metrics).toMatch(/notifier_endpoint_breaker_state\{[^}]*provider="Flaky"[^}]*\} 2/);
    expect(metrics).toMatch(/notifier_endpoint_breaker_state\{[^}]*host="127\.0\.0\.1:\d+"/);

    // While open, a new notification is postponed to the half-open moment without any request.
    const second = await assign('Flaky');
    await eventually(
      async () => {
        const d = (await h.api('GET', `/admin/deliveries/${second}`, account)).body;
        return d?.nextAttemptAt && Date.parse(d.nextAttemptAt) >= openedAt + resetMs;
      },
      { what: 'second delivery postponed to the half-open moment' },
    );

    const all = await eventually(
      async () => {
        const a = (await h.api('GET', `/admin/deliveries/${first}`, account)).body;
        const b = (await h.api('GET', `/admin/deliveries/${second}`, account)).body;
        return a.state === 'delivered' && b.state === 'delivered' ? [a, b] : undefined;
      },
      { what: 'both delivered once the breaker closed', timeoutMs: 30_000 },
    );
    expect(all?.[1].attempts.at(-1)).toMatchObject({ status: 200 });
    expect((await breaker('Flaky'))?.state).toBe('closed');

    // Request 4 is the first half-open trial: not before resetMs after opening; request 5 the next trial.
    const at = ep.received.map((r) => r.at);
    expect(ep.received.map((r) => r.answered)).toEqual([500, 500, 500, 500, 200, 200]);
    expect(at[3]).toBeGreaterThanOrEqual(openedAt + resetMs - 5);
    expect(at[4]).toBeGreaterThanOrEqual((at[3] as number) + resetMs - 5);
    const states = h.logs.lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'endpoint breaker state' && l.provider === 'Flaky')
      .map((l) => l.state);
    expect(states).toEqual(['closed', 'open', 'halfOpen', 'open', 'halfOpen', 'closed']);
  });

  it("a 4xx answer other than 408/429 is the provider's answer: retried, but not a breaker failure", async () => {
    const ep = await registered('Picky');
    // Four 400s (more than the breaker's volume threshold of 3), then a 200.
    ep.reply = (_r, n) => (n <= 4 ? { status: 400 } : { status: 200 });
    const id = await assign('Picky');
    const done = await eventually(
      async () => {
        const d = (await h.api('GET', `/admin/deliveries/${id}`, account)).body;
        return d?.state === 'delivered' ? d : undefined;
      },
      { what: 'delivered after four 400s', timeoutMs: 30_000 },
    );
    expect(done.attempts.map((a: { status: number }) => a.status)).toEqual([400, 400, 400, 400, 200]);
    expect(ep.received.map((r) => r.answered)).toEqual([400, 400, 400, 400, 200]);
    expect(await breaker('Picky')).toMatchObject({ state: 'closed', failures: 0 });
    const states = h.logs.lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'endpoint breaker state' && l.provider === 'Picky')
      .map((l) => l.state);
    expect(states).toEqual(['closed']);
  });

  it("a hanging provider does not delay another provider's notifications", async () => {
    const slow = await registered('Slow');
    const fast = await registered('Fast');
    slow.reply = () => 'hang';
    const slowIds: string[] = [];
    for (let i = 0; i < 6; i++) slowIds.push(await assign('Slow'));
    // The slow endpoint holds its concurrency limit (2) of requests open before the fast ones are published.
    await eventually(() => slow.hangingCount() === 2, { what: 'two hanging requests at the slow endpoint' });
    const publishedAt = Date.now();
    const fastIds: string[] = [];
    for (let i = 0; i < 5; i++) fastIds.push(await assign('Fast'));

    await eventually(() => fast.received.filter((r) => r.answered === 200).length === 5, {
      what: 'every fast notification delivered while the slow endpoint hangs',
      timeoutMs: 20_000,
    });
    // Measured while the hang is still going on: nothing answered at the slow endpoint, no more than its limit in flight.
    expect(slow.hangingCount()).toBe(2);
    expect(slow.received).toHaveLength(2);
    expect(slow.received.every((r) => r.answered === undefined)).toBe(true);
    expect(new Set(fast.received.map((r) => r.headers['webhook-id']))).toEqual(new Set(fastIds));
    expect(Math.min(...fast.received.map((r) => r.at))).toBeGreaterThanOrEqual(publishedAt);
    // The store agrees: every fast delivery is delivered while every slow one is still pending.
    await eventually(
      async () => {
        const states = await Promise.all(
          fastIds.map(async (id) => (await h.api('GET', `/admin/deliveries/${id}`, account)).body.state),
        );
        return states.every((s) => s === 'delivered');
      },
      { what: 'fast deliveries recorded delivered' },
    );
    const slowStates = await Promise.all(
      slowIds.map(async (id) => (await h.api('GET', `/admin/deliveries/${id}`, account)).body.state),
    );
    expect(slowStates).toEqual(slowIds.map(() => 'pending'));
    expect(slow.hangingCount()).toBe(2);

    // Once the slow endpoint answers, its backlog drains too.
    slow.reply = () => ({ status: 200 });
    slow.releaseHanging();
    await eventually(() => slowIds.every((id) => slow.byId(id).some((r) => r.answered === 200)), {
      what: 'slow backlog delivered',
      timeoutMs: 30_000,
    });
  });
});

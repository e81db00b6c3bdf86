import { type BreakerState, EndpointBreakers, isProviderAnswer } from '../../src/clients/endpoint-breakers';
import type { AttemptResult } from '../../src/domain/outcome';

const response = (status: number): AttemptResult => ({ kind: 'response', status, latencyMs: 5 });
const transportError: AttemptResult = { kind: 'error', error: 'ECONNRESET', latencyMs: 5 };

describe('isProviderAnswer: which failures do not count against the breaker', () => {
  it.each([400, 401, 403, 404, 409, 410, 422])('%i is the provider refusing this request (endpoint up)', (status) => {
    expect(isProviderAnswer(response(status))).toBe(true);
  });
  it.each([408, 429, 500, 502, 503])('%i is an endpoint failure', (status) => {
    expect(isProviderAnswer(response(status))).toBe(false);
  });
  it('no response at all is an endpoint failure; a 2xx is no failure', () => {
    expect(isProviderAnswer(transportError)).toBe(false);
    expect(isProviderAnswer(response(200))).toBe(false);
  });
});

// The breakers run on opossum's timers; fake timers move time without sleeping.
describe('EndpointBreakers', () => {
  const resetMs = 10_000;
  let breakers: EndpointBreakers;
  let changes: [string, BreakerState][];
  const key = 'acme/Prov';
  const url = 'https://prov.example/hook';

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    changes = [];
    breakers = new EndpointBreakers({
      volumeThreshold: 3,
      errorPercentage: 50,
      resetMs,
      windowMs: 60_000,
      onStateChange: (gate, state) => changes.push([gate.key, state]),
    });
  });
  afterEach(() => {
    breakers.shutdown();
    jest.useRealTimers();
  });

  /** Sends one attempt with this result through the gate; counts the calls that reached the endpoint. */
  let calls = 0;
  const attempt = (gateKey: string, result: AttemptResult) =>
    breakers.send(breakers.gate(gateKey, url), async () => {
      calls++;
      return result;
    });

  it('passes results through while closed and counts the failure streak', async () => {
    for (let i = 0; i < 3; i++)
      expect(await attempt(key, response(200))).toEqual({ sent: true, result: response(200) });
    // 2 failures in 5 attempts: 40%, under the 50% threshold.
    expect(await attempt(key, response(500))).toEqual({ sent: true, result: response(500) });
    expect(await attempt(key, transportError)).toEqual({ sent: true, result: transportError });
    const gate = breakers.gate(key, url);
    expect(gate.consecutiveFailures).toBe(2);
    expect(EndpointBreakers.state(gate)).toBe('closed');
  });

  it('stays closed below the volume threshold, opens once the window holds enough failures', async () => {
    await attempt(key, response(500));
    await attempt(key, response(503));
    const gate = breakers.gate(key, url);
    expect(EndpointBreakers.state(gate)).toBe('closed');
    await attempt(key, response(502));
    expect(EndpointBreakers.state(gate)).toBe('open');
    expect(EndpointBreakers.admits(gate)).toBe(false);
    expect(gate.openedAt).toBe(Date.now());
    expect(EndpointBreakers.retryAt(gate, resetMs)).toBe(Date.now() + resetMs);
    expect(changes.at(-1)).toEqual([key, 'open']);
  });

  it('4xx answers never open it (the endpoint is up) and end the failure streak', async () => {
    await attempt(key, response(500));
    for (let i = 0; i < 10; i++)
      expect(await attempt(key, response(404))).toEqual({ sent: true, result: response(404) });
    const gate = breakers.gate(key, url);
    expect(EndpointBreakers.state(gate)).toBe('closed');
    expect(gate.consecutiveFailures).toBe(0);
  });

  it('while open, sends are rejected without calling the endpoint', async () => {
    for (let i = 0; i < 3; i++) await attempt(key, response(500));
    calls = 0;
    expect(await attempt(key, response(200))).toEqual({ sent: false });
    expect(calls).toBe(0);
  });

  it('after resetMs it half-opens and lets exactly one trial through; a success closes it', async () => {
    for (let i = 0; i < 3; i++) await attempt(key, response(500));
    const gate = breakers.gate(key, url);
    jest.advanceTimersByTime(resetMs);
    expect(EndpointBreakers.state(gate)).toBe('halfOpen');
    expect(EndpointBreakers.admits(gate)).toBe(true);
    expect(changes.at(-1)).toEqual([key, 'halfOpen']);

    let finish: (r: AttemptResult) => void = () => undefined;
    calls = 0;
    const trial = breakers.send(gate, () => {
      calls++;
      return new Promise<AttemptResult>((r) => {
        finish = r;
      });
    });
    // The trial is in flight: nothing else gets through meanwhile.
    expect(EndpointBreakers.admits(gate)).toBe(false);
    expect(await attempt(key, response(200))).toEqual({ sent: false });
    finish(response(204));
    expect(await trial).toEqual({ sent: true, result: response(204) });
    expect(calls).toBe(1);
    expect(EndpointBreakers.state(gate)).toBe('closed');
    expect(gate.openedAt).toBeNull();
    expect(changes.at(-1)).toEqual([key, 'closed']);
  });

  it('a failed trial opens it again for another resetMs', async () => {
    for (let i = 0; i < 3; i++) await attempt(key, response(500));
    const gate = breakers.gate(key, url);
    jest.advanceTimersByTime(resetMs);
    expect(await attempt(key, response(500))).toEqual({ sent: true, result: response(500) });
    expect(EndpointBreakers.state(gate)).toBe('open');
    expect(EndpointBreakers.retryAt(gate, resetMs)).toBe(Date.now() + resetMs);
  });

  it('endpoints are isolated: one open breaker does not hold another provider', async () => {
    for (let i = 0; i < 3; i++) await attempt(key, response(500));
    expect(await attempt('acme/Other', response(200))).toEqual({ sent: true, result: response(200) });
    expect(EndpointBreakers.state(breakers.gate('acme/Other', url))).toBe('closed');
  });

  it('a new endpoint URL or a reset starts a fresh, closed gate', async () => {
    for (let i = 0; i < 3; i++) await attempt(key, response(500));
    const moved = breakers.gate(key, 'https://prov.example/v2');
    expect(EndpointBreakers.state(moved)).toBe('closed');
    for (let i = 0; i < 3; i++) await breakers.send(moved, async () => response(500));
    expect(EndpointBreakers.state(moved)).toBe('open');
    breakers.reset(key);
    expect(breakers.find(key)).toBeUndefined();
    expect(EndpointBreakers.state(breakers.gate(key, 'https://prov.example/v2'))).toBe('closed');
  });
});

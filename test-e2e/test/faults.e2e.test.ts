import { type AgentRef, ContactCenter, type Problem, providerHeaders } from '../src/contact-center.scenario';
import { type ApiResponse, expectStatus } from '../src/gateway.client';
import { assertLocalKafka, assertLocalStore, stackScript } from '../src/local-stack.control';
import { killService, restartService } from '../src/suite';
import { until } from '../src/until';

// Fault scenarios: each breaks one part of the running suite in the middle of the main flow, brings it
// back, lets the flow complete, and then proves from the provider endpoint and the notifier's delivery log
// that every accepted interaction reached its end and every notification arrived at least once.

/** One interaction of a scenario and the agent whose skill it needs. */
interface Item {
  id: string;
  agent: AgentRef;
}

const open: ContactCenter[] = [];

afterAll(async () => {
  for (const cc of open) await cc.close();
});

/** A contact center with its provider registered and both agents Ready. */
async function prepared(label: string): Promise<ContactCenter> {
  const cc = await ContactCenter.setup(label);
  open.push(cc);
  await cc.register({ release: 1, hold: 1 });
  await cc.presence(cc.alice, 'Ready');
  await cc.presence(cc.bob, 'Ready');
  return cc;
}

/** `n` dispatch requests, alternately needing alice's Printers and bob's Billing skill (the same for the same tag). */
function work(cc: ContactCenter, tag: string, n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    requestId: `${tag}-req-${i}`,
    externalId: `${tag}-case-${i}`,
    route: cc.route,
    linkeddata: [{ type: 'name', value: `${tag} ${i}` }],
    routingdata: {
      interactiontype: i % 3 === 0 ? 'chat' : 'nonlive',
      skills: [{ name: i % 2 ? 'Billing' : 'Printers' }],
    },
  }));
}

/** Dispatches {@link work} (retried while routing does not know the provider yet) and pairs each with its agent. */
async function dispatchWork(cc: ContactCenter, tag: string, n: number): Promise<Item[]> {
  const results = await cc.invoke(work(cc, tag, n));
  expect(results.map((r) => r.outcome)).toEqual(results.map(() => 'queued'));
  return results.map((r, i) => ({ id: r.interactionId as string, agent: i % 2 ? cc.bob : cc.alice }));
}

/** Waits for each item's offer at its agent and accepts it. */
async function accept(cc: ContactCenter, items: Item[], timeoutMs?: number): Promise<void> {
  for (const item of items) {
    const offer = await cc.offerOf(item.agent, item.id, timeoutMs);
    expect((await cc.accept(item.agent, offer)).state).toBe('connected');
  }
}

/** Hold (every other one), retrieve, release and end wrap of each item. */
async function finish(cc: ContactCenter, items: Item[]): Promise<void> {
  for (const [i, item] of items.entries()) await cc.handle(item.agent, item.id, i % 2 === 0);
}

/** Asserts an answer is a problem+json error with a status in the range (the suite stays honest while degraded). */
function expectProblem(res: ApiResponse<Problem>, min: number, max: number): void {
  expect(res.contentType).toMatch(/^application\/problem\+json/);
  expect(res.status).toBeGreaterThanOrEqual(min);
  expect(res.status).toBeLessThanOrEqual(max);
}

describe('fault scenarios: the main flow completes and nothing is lost', () => {
  it('routing killed with SIGKILL mid-flow and restarted', async () => {
    const cc = await prepared('kill-routing');
    const first = await dispatchWork(cc, 'r1', 4);
    await accept(cc, first.slice(0, 2));
    // Mid-flow: a batch was just taken by Invoke and two interactions were just accepted by agents.
    const second = await dispatchWork(cc, 'r2', 4);
    // And one Invoke in flight when routing dies: the client does not know whether it was processed.
    const inflight = cc.invokeOnce({ provider: cc.provider, requests: work(cc, 'r3', 4) }).catch(() => undefined);
    await killService('routing');
    cc.mark('routing killed');
    await inflight;
    const down = await cc.tenant.api<Problem>('agent', {
      method: 'GET',
      path: `/agent-desktop/agents/${cc.alice.agentId}/offers`,
    });
    expectProblem(down, 502, 503);
    await restartService('routing');
    cc.mark('routing ready again');
    // The client retries the in-flight Invoke with the same requestIds: processed exactly once either way.
    const third = await dispatchWork(cc, 'r3', 4);
    const all = [...first, ...second, ...third];
    await accept(cc, [...first.slice(2), ...second, ...third]);
    await finish(cc, all);
    await cc.assertNothingLost(all.map((i) => i.id));
    // Nothing was created twice: no other interaction rings at either agent.
    expect(await cc.offers(cc.alice)).toEqual([]);
    expect(await cc.offers(cc.bob)).toEqual([]);
    cc.mark('nothing lost');
  }, 240_000);

  it('notifier killed with SIGKILL while notifications are being delivered, and restarted', async () => {
    const cc = await prepared('kill-notifier');
    const items = await dispatchWork(cc, 'n1', 4);
    await accept(cc, items);
    // The AssignToAgent notifications are being recorded and sent right now.
    await killService('notifier');
    cc.mark('notifier killed');
    await finish(cc, items.slice(0, 2));
    await restartService('notifier');
    cc.mark('notifier ready again');
    await finish(cc, items.slice(2));
    await cc.assertNothingLost(items.map((i) => i.id));
    cc.mark('nothing lost');
  }, 240_000);

  it('provider registry killed with SIGKILL right after a registration and mid-flow, and restarted', async () => {
    const cc = await ContactCenter.setup('kill-registry');
    open.push(cc);
    await cc.register({ release: 1, hold: 1 });
    // Killed right after answering 201: the provider event must still reach routing and the notifier.
    await killService('provider-registry');
    await restartService('provider-registry');
    cc.mark('registry restarted after the registration');
    await cc.presence(cc.alice, 'Ready');
    await cc.presence(cc.bob, 'Ready');
    const items = await dispatchWork(cc, 'p1', 4);
    await accept(cc, items.slice(0, 2));
    await killService('provider-registry');
    cc.mark('registry killed mid-flow');
    // Down: registering answers a problem, the interaction flow goes on without the registry.
    const down = await cc.tenant.api<Problem>('interactions:write', {
      method: 'POST',
      path: '/interactions/Register',
      json: { provider: cc.provider, endpoint: cc.endpoint.url(), agentactionspermitted: { release: 1 } },
    });
    expectProblem(down, 502, 503);
    await accept(cc, items.slice(2));
    await finish(cc, items.slice(0, 2));
    await restartService('provider-registry');
    cc.mark('registry ready again');
    // Re-registering replaces the settings but keeps the signing secret (notifications still verify).
    const replaced = expectStatus(
      await cc.tenant.api<Record<string, unknown>>('interactions:write', {
        method: 'POST',
        path: '/interactions/Register',
        json: {
          provider: cc.provider,
          endpoint: cc.endpoint.url(),
          headers: providerHeaders,
          agentactionspermitted: { release: 1, hold: 1, transferToRoute: 1 },
        },
      }),
      200,
      're-register after restart',
    ).body;
    expect(replaced).not.toHaveProperty('signingSecret');
    expect(replaced).toMatchObject({ permissions: { transferToRoute: true } });
    const more = await dispatchWork(cc, 'p2', 2);
    await accept(cc, more);
    await finish(cc, [...items.slice(2), ...more]);
    await cc.assertNothingLost([...items, ...more].map((i) => i.id));
    cc.mark('nothing lost');
  }, 240_000);

  it('Kafka stopped for 20 seconds mid-flow and started again', async () => {
    assertLocalKafka();
    const cc = await prepared('kafka-down');
    const items = await dispatchWork(cc, 'k1', 4);
    await accept(cc, items.slice(0, 2));
    await cc.notification(items[0]?.id as string, 'AssignToAgent');
    await stackScript('kafka.sh', 'stop');
    const downUntil = Date.now() + 20_000;
    const late = `${cc.provider}-late`;
    let during: Item[] = [];
    let registering: Promise<ApiResponse> | undefined;
    try {
      cc.mark('Kafka stopped');
      // While the broker is down the suite keeps taking work: each state change and its events are one
      // write, and the events wait in the outboxes.
      await finish(cc, items.slice(0, 1));
      during = await dispatchWork(cc, 'k2', 2);
      await accept(cc, items.slice(2, 3));
      // Not awaited here: its answer is checked at the end, so a slow answer cannot hide the rest.
      registering = cc.tenant
        .api('interactions:write', {
          method: 'POST',
          path: '/interactions/Register',
          json: { provider: late, agentactionspermitted: { release: 1 } },
        })
        .catch((err: Error) => ({ status: 0, headers: {}, contentType: '', text: err.message, body: undefined }));
      cc.mark('work done during the outage');
      await until(() => Date.now() >= downUntil, { timeoutMs: 25_000, intervalMs: 250, what: '20 s of Kafka outage' });
    } finally {
      // Started again even when a step failed, so the broker is never left down for the next scenario.
      await stackScript('kafka.sh', 'start');
      await stackScript('stack.sh', 'wait');
    }
    cc.mark('Kafka ready again');
    await accept(cc, [...items.slice(3), ...during], 90_000);
    await finish(cc, [...items.slice(1), ...during]);
    await cc.assertNothingLost(
      [...items, ...during].map((i) => i.id),
      150_000,
    );
    cc.mark('nothing lost');
    // The registration made during the outage was answered (201, with its signing secret, shown only then)
    // and reached routing: Invoke knows that provider.
    const registered = await (registering as Promise<ApiResponse>);
    expectStatus(registered, 201, 'Register while Kafka was down');
    const [queued] = await cc.invoke([{ requestId: 'k3-req', route: cc.route }], 120_000, late);
    expect(queued?.outcome).toBe('queued');
    cc.mark('provider registered during the outage known to routing');
  }, 360_000);

  it('the store restarted mid-flow', async () => {
    assertLocalStore();
    const cc = await prepared('store-restart');
    const items = await dispatchWork(cc, 's1', 4);
    await accept(cc, items.slice(0, 2));
    await stackScript('ferretdb.sh', 'stop');
    try {
      cc.mark('store stopped');
      const down = await cc.tenant.api<Problem>('agent', {
        method: 'POST',
        path: `/agent-desktop/agents/${items[0]?.agent.agentId}/interactions/${items[0]?.id}/hold`,
      });
      cc.mark(`store down: ${down.status} ${down.text}`);
      expectProblem(down, 500, 504);
    } finally {
      await stackScript('ferretdb.sh', 'start');
      await stackScript('stack.sh', 'wait');
    }
    cc.mark('store ready again');
    await accept(cc, items.slice(2), 90_000);
    await finish(cc, items);
    const more = await dispatchWork(cc, 's2', 2);
    await accept(cc, more);
    await finish(cc, more);
    await cc.assertNothingLost(
      [...items, ...more].map((i) => i.id),
      120_000,
    );
    cc.mark('nothing lost');
  }, 240_000);
});

import { randomUUID } from 'node:crypto';
import { eventually } from '@cc/testing';
import { reserve } from '../../src/domain/agent';
import { offerTo } from '../../src/domain/interaction';
import type { InteractionRecord } from '../../src/domain/types';
import type { RoutingService } from '../../src/service';
import { Api, expectOk } from '../support/api';
import { Harness } from '../support/harness';
import { dispatchAndAccept, scenario } from '../support/scenario';

const h = new Harness();
let base: string;
let svc: RoutingService;

beforeAll(async () => {
  await h.setup();
  svc = await h.start();
  base = await h.publicUrl(svc);
}, 60_000);
afterAll(() => h.teardown());

describe('provider permissions on agent actions', () => {
  it('hold 0: hold and retrieve are 403 naming the operation; release (default) is allowed', async () => {
    const { api, provider, agentId } = await scenario(h, base, { hold: 0 });
    const { interactionId } = await dispatchAndAccept(api, agentId, provider);
    const held = await api.agent('POST', `/${agentId}/interactions/${interactionId}/hold`);
    expect(held.status).toBe(403);
    expect(held.body).toMatchObject({
      code: 'AGENT.ACTION_FORBIDDEN',
      operation: 'hold',
      detail: `The provider ${provider} does not permit hold`,
    });
    const list = expectOk(await api.agent('GET', `/${agentId}/interactions`)).body;
    expect(list[0]).toMatchObject({
      interactionId,
      state: 'connected',
      permissions: { release: true, hold: false, retrieve: false, transferToAgent: false, transferToRoute: false },
    });
    expect(expectOk(await api.agent('POST', `/${agentId}/interactions/${interactionId}/release`)).body.state).toBe(
      'wrap',
    );
  });

  it('hold 1 permits hold and retrieve', async () => {
    const { api, provider, agentId } = await scenario(h, base, { hold: 1 });
    const { interactionId } = await dispatchAndAccept(api, agentId, provider);
    expect(expectOk(await api.agent('POST', `/${agentId}/interactions/${interactionId}/hold`)).body.state).toBe('held');
    expect(expectOk(await api.agent('POST', `/${agentId}/interactions/${interactionId}/retrieve`)).body.state).toBe(
      'connected',
    );
    const again = await api.agent('POST', `/${agentId}/interactions/${interactionId}/retrieve`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('AGENT.INVALID_STATE');
  });

  it('release 0: the agent cannot release (403 naming release)', async () => {
    const { api, provider, agentId } = await scenario(h, base, { release: 0 });
    const { interactionId } = await dispatchAndAccept(api, agentId, provider);
    const rel = await api.agent('POST', `/${agentId}/interactions/${interactionId}/release`);
    expect(rel.status).toBe(403);
    expect(rel.body.detail).toBe(`The provider ${provider} does not permit release`);
  });

  it('transfers are refused unless permitted (403 naming transferToAgent / transferToRoute), whatever the target', async () => {
    const { api, provider, agentId } = await scenario(h, base, { hold: 1 });
    await api.createAgent('agent.two', { ready: true });
    const { interactionId } = await dispatchAndAccept(api, agentId, provider);
    const toAgent = await api.agent('POST', `/${agentId}/interactions/${interactionId}/transfer`, {
      agent: 'agent.two',
    });
    expect(toAgent.status).toBe(403);
    expect(toAgent.body).toMatchObject({ code: 'AGENT.ACTION_FORBIDDEN', operation: 'transferToAgent' });
    const toNobody = await api.agent('POST', `/${agentId}/interactions/${interactionId}/transfer`, { agent: 'nobody' });
    expect(toNobody.status).toBe(403);
    const toRoute = await api.agent('POST', `/${agentId}/interactions/${interactionId}/transfer`, { route: 'Support' });
    expect(toRoute.status).toBe(403);
    expect(toRoute.body.operation).toBe('transferToRoute');
    const bad = await api.agent('POST', `/${agentId}/interactions/${interactionId}/transfer`, {
      agent: 'a',
      route: 'b',
    });
    expect(bad.status).toBe(400);
  });

  it("a permitted transfer to an agent (username in any case) ends the agent's work and offers it to the target", async () => {
    const { api, provider, agentId } = await scenario(h, base, { transferToAgent: 1, transferToRoute: 1 });
    const two = await api.createAgent('Agent.Two', { ready: true });
    const { interactionId } = await dispatchAndAccept(api, agentId, provider);
    const unknown = await api.agent('POST', `/${agentId}/interactions/${interactionId}/transfer`, { agent: 'ghost' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual([{ pointer: '/agent', message: 'agent ghost does not exist' }]);
    expect(
      (await api.agent('POST', `/${agentId}/interactions/${interactionId}/transfer`, { agent: 'AGENT.TWO' })).status,
    ).toBe(202);
    expect(expectOk(await api.agent('GET', `/${agentId}/interactions`)).body).toEqual([]);
    const offer = await eventually(async () => (await api.agent('GET', `/${two}/offers`)).body?.[0], {
      what: 'offer at the target agent',
    });
    expect(offer.interactionId).toBe(interactionId);
    const trace = expectOk(await api.admin('GET', `/interactions/${interactionId}/trace`)).body;
    expect(trace.decisions.at(-1)).toMatchObject({ rule: 'personal-queue', winner: two });
    // Then to a route: requeued through the route's plan.
    expectOk(await api.agent('POST', `/${two}/offers/${offer.offerId}/accept`));
    expect(
      (await api.agent('POST', `/${two}/interactions/${interactionId}/transfer`, { route: 'Nowhere' })).status,
    ).toBe(422);
    expect(
      (await api.agent('POST', `/${two}/interactions/${interactionId}/transfer`, { route: 'support' })).status,
    ).toBe(202);
    const events = await eventually(() => h.collector?.of(interactionId) ?? [], {
      accept: (e) => e.filter((x) => x.type === 'interaction.transferred').length === 2,
    });
    expect(events.filter((e) => e.type === 'interaction.transferred').map((e) => e.data.target)).toEqual([
      { kind: 'agent', agentUsername: 'Agent.Two' },
      { kind: 'route', route: 'Support' },
    ]);
  });

  it('without a provider every action is allowed', async () => {
    const { api, agentId } = await scenario(h, base);
    const { interactionId } = await dispatchAndAccept(api, agentId);
    expect(expectOk(await api.agent('GET', `/${agentId}/interactions`)).body[0].permissions).toEqual({
      release: true,
      hold: true,
      retrieve: true,
      transferToAgent: true,
      transferToRoute: true,
    });
    expect(expectOk(await api.agent('POST', `/${agentId}/interactions/${interactionId}/hold`)).body.state).toBe('held');
  });
});

describe('release by API of an assigned interaction', () => {
  it("ends the agent's work (no wrap): agent free, events say released by api", async () => {
    const { api, provider, agentId } = await scenario(h, base, {});
    const { interactionId, externalId } = await dispatchAndAccept(api, agentId, provider);
    const rel = expectOk(await api.invoke({ provider, requests: [{ action: 'release', externalId }] }));
    expect(rel.body.results[0]).toMatchObject({ outcome: 'released', interactionId });
    expect(expectOk(await api.agent('GET', `/${agentId}/interactions`)).body).toEqual([]);
    const events = await eventually(() => h.collector?.of(interactionId) ?? [], {
      accept: (e) => e.some((x) => x.type === 'interaction.released'),
    });
    expect(events.at(-1)?.data).toMatchObject({ releasedBy: 'api', previousState: 'connected', agentId, provider });
    const activity = await eventually(() => h.collector?.of(agentId) ?? [], {
      accept: (e) => e.some((x) => x.type === 'agent-activity.segment-ended' && x.data.segment === 'Connected'),
    });
    expect(activity.filter((e) => e.type === 'agent-activity.workload-changed').at(-1)?.data.workload.calls).toBe(0);
  });
});

describe('offers', () => {
  it('reject → counted Unexpected and requeued to the next agent; the trace explains both decisions', async () => {
    const { api, agentId } = await scenario(h, base);
    const res = expectOk(
      await api.invoke({ requests: [{ route: 'Support', routingdata: { interactiontype: 'chat' } }] }),
    );
    const interactionId = res.body.results[0].interactionId;
    const offer = await eventually(async () => (await api.agent('GET', `/${agentId}/offers`)).body?.[0], {
      what: 'first offer',
    });
    // The agent rejects and goes Away; a second agent becomes Ready.
    expect((await api.agent('POST', `/${agentId}/offers/${offer.offerId}/reject`)).status).toBe(204);
    expectOk(await api.agent('PUT', `/${agentId}/presence`, { presence: 'Away', reason: 'Break' }));
    expect((await api.agent('POST', `/${agentId}/offers/${offer.offerId}/accept`)).status).toBe(404);
    const two = await api.createAgent('agent.two', { ready: true });
    const second = await eventually(async () => (await api.agent('GET', `/${two}/offers`)).body?.[0], {
      what: 'second offer',
    });
    expect(second.interactionId).toBe(interactionId);
    const events = await eventually(() => h.collector?.of(interactionId) ?? [], {
      accept: (e) => e.filter((x) => x.type === 'interaction.offered').length === 2,
    });
    expect(events.map((e) => e.type)).toEqual([
      'interaction.queued',
      'interaction.offered',
      'interaction.rejected',
      'interaction.offered',
    ]);
    expect(events[2]?.data).toMatchObject({ reason: 'rejected', outcome: 'Unexpected', agentId });
    expect(events[3]?.data.attempt).toBe(2);
    const trace = expectOk(await api.admin('GET', `/interactions/${interactionId}/trace`)).body;
    expect(trace.decisions[0]).toMatchObject({ rule: 'longest-idle', winner: agentId, interactionType: 'chat' });
    const last = trace.decisions.at(-1);
    expect(last).toMatchObject({ winner: two });
    expect(last.candidates.find((c: { agentId: string }) => c.agentId === agentId)).toMatchObject({
      excluded: 'presence Away',
    });
  });

  it('only the offered agent can accept; an expired or unknown offer cannot be accepted', async () => {
    const { api, agentId } = await scenario(h, base);
    const other = await api.createAgent('agent.two');
    expectOk(await api.invoke({ requests: [{ route: 'Support' }] }));
    const offer = await eventually(async () => (await api.agent('GET', `/${agentId}/offers`)).body?.[0], {
      what: 'offer',
    });
    expect((await api.agent('POST', `/${other}/offers/${offer.offerId}/accept`)).status).toBe(404);
    expect((await api.agent('POST', `/${agentId}/offers/00000000-0000-4000-8000-000000000000/accept`)).status).toBe(
      404,
    );
    expect((await api.agent('POST', `/${agentId}/offers/not-a-guid/accept`)).status).toBe(400);
  });
});

describe('agent tokens and presence', () => {
  it('a token naming an agent may act only as that agent', async () => {
    const { api, agentId } = await scenario(h, base);
    const two = await api.createAgent('agent.two');
    const own = await h.token(api.accountId, 'agent', two);
    expect((await api.call('PUT', `/agent-desktop/agents/${two}/presence`, own, { presence: 'Ready' })).status).toBe(
      200,
    );
    const other = await api.call('PUT', `/agent-desktop/agents/${agentId}/presence`, own, { presence: 'Away' });
    expect(other.status).toBe(403);
    const adminToken = await h.token(api.accountId, 'admin');
    expect((await api.call('GET', `/agent-desktop/agents/${agentId}/presence`, adminToken)).status).toBe(403);
  });

  it('presence: invalid values are 400; logging out with work is 409; the presence view says eligibility', async () => {
    const { api, agentId } = await scenario(h, base);
    expect((await api.agent('PUT', `/${agentId}/presence`, { presence: 'Lunch' })).body.errors[0].pointer).toBe(
      '/presence',
    );
    await dispatchAndAccept(api, agentId);
    const out = await api.agent('PUT', `/${agentId}/presence`, { presence: 'LoggedOut' });
    expect(out.status).toBe(409);
    expect(
      expectOk(await api.agent('PUT', `/${agentId}/presence`, { presence: 'ExtendedAway', reason: 'Meeting' })).body,
    ).toMatchObject({
      agentId,
      presence: 'ExtendedAway',
      reason: 'Meeting',
      eligibleForRouting: false,
    });
  });
});

describe('an offer the desktop listed', () => {
  it('is not listed before its interaction write lands; an accept arriving before that waits for it, not 404', async () => {
    const api = await Api.for(h, base, h.account());
    await api.setupRoute('Support', { skills: ['English'] });
    // Without the skill the engine never picks this agent: the test plays the engine's two writes itself.
    const agentId = await api.createAgent('agent.one', { ready: true });
    const res = expectOk(
      await api.invoke({ requests: [{ route: 'Support', routingdata: { skills: [{ name: 'English' }] } }] }),
    );
    const interactionId = res.body.results[0].interactionId as string;
    const { interactions, agents } = svc.context;
    const rec = (await interactions.get(api.accountId, interactionId)) as InteractionRecord;
    const agent = await agents.get(api.accountId, agentId);
    if (!agent) throw new Error('agent missing');
    const ids = { offerId: randomUUID(), channelId: randomUUID() };
    const now = Date.now();
    const reserved = reserve(agent, { interactionId, type: rec.type, medium: rec.medium }, ids, now, {
      route: rec.route,
      provider: rec.provider,
      offeredAt: now,
      expiresAt: now + 20_000,
      linkeddata: rec.linkeddata,
    });
    expect(await agents.save(reserved.next, agent.version, [])).not.toBeNull();
    // Reserved, not yet offered on the interaction: not listed (the offer write may still lose).
    expect(expectOk(await api.agent('GET', `/${agentId}/offers`)).body).toEqual([]);

    // An accept of the reserved offer (its id is on the agent-activity stream: Ringing started) reads the
    // interaction before the offer is on it; the offer lands right after that read.
    const get = interactions.get.bind(interactions);
    let firstRead: () => void = () => undefined;
    const read = new Promise<void>((r) => {
      firstRead = r;
    });
    interactions.get = async (accountId, id) => {
      const out = await get(accountId, id);
      if (id === interactionId) firstRead();
      return out;
    };
    try {
      const accepting = api.agent('POST', `/${agentId}/offers/${ids.offerId}/accept`);
      await read;
      const cur = (await get(api.accountId, interactionId)) as InteractionRecord;
      expect(cur.state).toBe('queued');
      const decision = { at: now, rule: 'test', interactionType: cur.type, candidates: [], winner: agentId };
      const offered = offerTo(cur, { agentId, username: 'agent.one' }, decision, ids, now, 20_000);
      expect(await interactions.save(offered.next, cur.version, [])).not.toBeNull();
      const accepted = await accepting;
      expect(accepted.status).toBe(200);
      expect(accepted.body).toMatchObject({ interactionId, state: 'connected' });
    } finally {
      interactions.get = get;
    }
  });

  it('is 404 at once when its interaction was released meanwhile', async () => {
    const { api, agentId } = await scenario(h, base);
    const res = expectOk(await api.invoke({ requests: [{ route: 'Support', externalId: 'gone' }] }));
    const interactionId = res.body.results[0].interactionId as string;
    const offer = await eventually(
      async () =>
        (await api.agent('GET', `/${agentId}/offers`)).body?.find(
          (o: { interactionId: string }) => o.interactionId === interactionId,
        ),
      { what: 'the offer' },
    );
    expectOk(await api.invoke({ requests: [{ action: 'release', externalId: 'gone' }] }));
    const started = Date.now();
    expect((await api.agent('POST', `/${agentId}/offers/${offer.offerId}/accept`)).status).toBe(404);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('is never a reservation whose offer write lost to another lease holder: every listed offer is accepted', async () => {
    const api = await Api.for(h, base, h.account());
    await api.setupRoute('Support', { skills: ['English'] });
    // Without the skill the engine never picks these agents: the test plays two overlapping holders' writes
    // (under load a pass step can outlast the lease, and the next holder's pass starts from the same reads).
    const first = await api.createAgent('agent.first', { ready: true });
    const second = await api.createAgent('agent.second', { ready: true });
    const res = expectOk(
      await api.invoke({ requests: [{ route: 'Support', routingdata: { skills: [{ name: 'English' }] } }] }),
    );
    const interactionId = res.body.results[0].interactionId as string;
    const { interactions, agents } = svc.context;
    const rec = (await interactions.get(api.accountId, interactionId)) as InteractionRecord;
    const now = Date.now();
    const reserveAndOffer = async (agentId: string, username: string) => {
      const agent = await agents.get(api.accountId, agentId);
      if (!agent) throw new Error('agent missing');
      const ids = { offerId: randomUUID(), channelId: randomUUID() };
      const summary = {
        route: rec.route,
        provider: rec.provider,
        offeredAt: now,
        expiresAt: now + 20_000,
        linkeddata: [],
      };
      const reserved = reserve(agent, { interactionId, type: rec.type, medium: rec.medium }, ids, now, summary);
      expect(await agents.save(reserved.next, agent.version, [])).not.toBeNull();
      const decision = { at: now, rule: 'test', interactionType: rec.type, candidates: [], winner: agentId };
      // Both holders read the interaction at the same version: only the first offer write lands.
      const offered = offerTo(rec, { agentId, username }, decision, ids, now, 20_000);
      return { ids, offer: () => interactions.save(offered.next, rec.version, []) };
    };
    const lost = await reserveAndOffer(first, 'agent.first');
    const won = await reserveAndOffer(second, 'agent.second');
    expect(await won.offer()).not.toBeNull();

    // Each desktop lists its offers now, while the losing holder's reservation is still on the first agent,
    // and accepts every offer listed.
    const listed = new Map<string, string[]>();
    for (const agentId of [first, second]) {
      const offers = expectOk(await api.agent('GET', `/${agentId}/offers`)).body as { offerId: string }[];
      listed.set(
        agentId,
        offers.map((o) => o.offerId),
      );
    }
    expect(await lost.offer()).toBeNull();
    for (const [agentId, offerIds] of listed) {
      for (const offerId of offerIds)
        expect([offerId, (await api.agent('POST', `/${agentId}/offers/${offerId}/accept`)).status]).toEqual([
          offerId,
          200,
        ]);
    }
    expect(Object.fromEntries(listed)).toEqual({ [first]: [], [second]: [won.ids.offerId] });
  });
});

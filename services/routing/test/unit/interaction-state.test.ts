import { AppError } from '@cc/kit';
import { decide } from '../../src/domain/eligibility';
import {
  accept,
  agentRelease,
  apiRelease,
  canApply,
  createInteraction,
  endOffer,
  endWrap,
  failOffer,
  hold,
  type InteractionAction,
  offerTo,
  queueTimeout,
  releaseKey,
  retrieve,
  type Transition,
  transferToAgent,
  transferToRoute,
} from '../../src/domain/interaction';
import type { InteractionRecord, InteractionState } from '../../src/domain/types';
import { agentView, dispatched, ids, queuePlan, request } from '../builders/routing.builders';

const agent = { agentId: 'a0000000-0000-4000-8000-000000000001', username: 'jane' };
const other = { agentId: 'a0000000-0000-4000-8000-000000000002', username: 'bob' };
const decision = decide(request(), [agentView({ agentId: agent.agentId, username: 'jane' })], 2_000);

function offered(rec = dispatched(), at = 2_000) {
  const i = ids();
  const t = offerTo(rec, agent, decision, i, at, 20_000);
  return { rec: t.next, t, ...i };
}
function connected(at = 3_000) {
  const o = offered();
  return { ...o, rec: accept(o.rec, agent.agentId, o.offerId, at).next };
}
const types = (rec: { events: { type: string }[] }) => rec.events.map((e) => e.type);
const seqs = (rec: { events: { data: Record<string, unknown> }[] }) => rec.events.map((e) => e.data.sequence);

function expectCode(fn: () => unknown, code: string, message?: RegExp) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(code);
    if (message) expect((err as AppError).message).toMatch(message);
    return;
  }
  throw new Error(`expected ${code}`);
}

// The state machine, driven through the public transitions: each action succeeds from exactly the states the
// spec allows (landing in the state it names) and is refused from every other, leaving the record unchanged.
describe('the state machine', () => {
  type Driver = (rec: InteractionRecord) => Transition;
  /** The agent the record is with (assigned, or ringing), so a refusal is about the state, not the agent. */
  const holder = (rec: InteractionRecord) => rec.agent?.agentId ?? rec.offer?.agentId ?? agent.agentId;
  const offerOf = (rec: InteractionRecord) => rec.offer?.offerId ?? 'no-offer';
  const drivers: Record<string, Driver> = {
    offer: (rec) => offerTo(rec, agent, decision, ids(), 9_000, 20_000),
    accept: (rec) => accept(rec, holder(rec), offerOf(rec), 9_000),
    reject: (rec) => endOffer(rec, holder(rec), offerOf(rec), 9_000, 'rejected'),
    'offer-timeout': (rec) => endOffer(rec, holder(rec), offerOf(rec), 30_000, 'timed-out'),
    hold: (rec) => hold(rec, holder(rec), 9_000),
    retrieve: (rec) => retrieve(rec, holder(rec), 9_000),
    'transfer to agent': (rec) => transferToAgent(rec, holder(rec), other, 9_000, 60),
    'transfer to route': (rec) => transferToRoute(rec, holder(rec), { name: 'Sales', plan: queuePlan() }, 9_000),
    'agent release': (rec) => agentRelease(rec, holder(rec), 9_000),
    'end wrap': (rec) => endWrap(rec, holder(rec), 9_000),
    'api release': (rec) => apiRelease(rec, 9_000),
    'queue timeout': (rec) => queueTimeout(rec, 9_000),
  };
  /** A record in each state, reached through the transitions themselves. */
  const inState: Record<InteractionState, () => InteractionRecord> = {
    queued: () => dispatched(),
    offered: () => offered().rec,
    connected: () => connected().rec,
    held: () => hold(connected().rec, agent.agentId, 4_000).next,
    wrap: () => agentRelease(connected().rec, agent.agentId, 4_000).next,
    ended: () => apiRelease(dispatched(), 2_000).next,
  };
  /** action → (state it is allowed from → state it leads to); every other state refuses it. */
  const allowed: Record<keyof typeof drivers, Partial<Record<InteractionState, InteractionState>>> = {
    offer: { queued: 'offered' },
    accept: { offered: 'connected' },
    reject: { offered: 'queued' },
    'offer-timeout': { offered: 'queued' },
    hold: { connected: 'held' },
    retrieve: { held: 'connected' },
    'transfer to agent': { connected: 'queued', held: 'queued' },
    'transfer to route': { connected: 'queued', held: 'queued' },
    'agent release': { connected: 'wrap', held: 'wrap', wrap: 'ended' },
    'end wrap': { wrap: 'ended' },
    'api release': { queued: 'ended', offered: 'ended', connected: 'ended', held: 'ended', wrap: 'ended' },
    'queue timeout': { queued: 'ended' },
  };
  const states = Object.keys(inState) as InteractionState[];
  const cases = Object.keys(drivers).flatMap((action) => states.map((from) => [action, from] as const));

  it.each(cases)('%s from %s', (action, from) => {
    const rec = inState[from]();
    expect(rec.state).toBe(from);
    const before = structuredClone(rec);
    const to = allowed[action]?.[from];
    if (to) {
      const t = (drivers[action] as Driver)(rec);
      expect(t.next.state).toBe(to);
      expect(t.events.length).toBeGreaterThan(0);
      expect(t.next.seq).toBe(rec.seq + t.events.length);
    } else {
      // Refused with a coded error: 409 when the state forbids it; 404 for an agent action when nobody is assigned.
      let error: unknown;
      try {
        (drivers[action] as Driver)(rec);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(AppError);
      expect(['AGENT.INVALID_STATE', 'REQUEST.NOT_FOUND']).toContain((error as AppError).code);
      if (rec.agent) expect((error as AppError).code).toBe('AGENT.INVALID_STATE');
    }
    expect(rec).toEqual(before);
  });

  it('canApply agrees with what the transitions do', () => {
    const actionOf: Record<keyof typeof drivers, InteractionAction> = {
      offer: 'offer',
      accept: 'accept',
      reject: 'reject',
      'offer-timeout': 'offer-timeout',
      hold: 'hold',
      retrieve: 'retrieve',
      'transfer to agent': 'transfer',
      'transfer to route': 'transfer',
      'agent release': 'release',
      'end wrap': 'end-wrap',
      'api release': 'api-release',
      'queue timeout': 'queue-timeout',
    };
    for (const [action, from] of cases) {
      expect([action, from, canApply(from, actionOf[action] as InteractionAction)]).toEqual([
        action,
        from,
        allowed[action]?.[from] !== undefined,
      ]);
    }
  });
});

describe('dispatch', () => {
  it("queues the interaction in the plan's Queue applet with interaction.queued first", () => {
    const t = createInteraction({
      interactionId: 'i0000000-0000-4000-8000-000000000001',
      conversationId: 'c0000000-0000-4000-8000-000000000001',
      accountId: 'acme',
      requestId: 'r1',
      externalId: 'e1',
      provider: {
        name: 'AcmeCRM',
        permissions: { release: true, hold: false, retrieve: false, transferToAgent: false, transferToRoute: false },
      },
      route: 'Support',
      plan: queuePlan({
        applets: [
          { type: 'Announcement', name: 'Hello', message: 'Hi' },
          { type: 'Queue', name: 'Q', timeoutSeconds: 30 },
        ],
      }),
      type: 'chat',
      linkeddata: [{ type: 'clid', value: '+441' }],
      skills: [{ name: 'English', expiryafter: null }],
      personalQueue: null,
      now: 5_000,
    });
    expect(t.next).toMatchObject({
      state: 'queued',
      queuedAt: 5_000,
      medium: 'Chat',
      provider: 'AcmeCRM',
      liveKey: releaseKey('AcmeCRM', 'e1'),
    });
    expect(t.next.queue).toEqual({ appletIndex: 1, name: 'Q', virtualQueue: 'Q', enteredAt: 5_000, timeoutAt: 35_000 });
    expect(types(t)).toEqual(['interaction.queued', 'interaction.applet-executed']);
    expect(seqs(t)).toEqual([1, 2]);
    expect(t.events[0]?.data).toMatchObject({
      requestId: 'r1',
      route: 'Support',
      connectFrom: '+441',
      provider: 'AcmeCRM',
      accountId: 'acme',
    });
  });

  it('a plan without a Queue applet ends at once, released by the system', () => {
    const rec = dispatched({
      plan: queuePlan({ applets: [{ type: 'Announcement', name: 'Closed', message: 'We are closed' }] }),
    });
    expect(rec.state).toBe('ended');
    expect(rec.liveKey).toBe(`none:${rec.interactionId}`);
  });

  it('without externalId the interaction gets no release key', () => {
    const rec = dispatched({ externalId: null });
    expect(rec.liveKey).toBe(`none:${rec.interactionId}`);
  });
});

describe('offer, accept, reject, time out', () => {
  it('offer → Offered with a ringing leg, the decision and its rule', () => {
    const { rec, t, offerId, channelId } = offered();
    expect(rec.state).toBe('offered');
    expect(rec.offer).toMatchObject({
      offerId,
      channelId,
      agentId: agent.agentId,
      offeredAt: 2_000,
      expiresAt: 22_000,
      attempt: 1,
      rule: 'longest-idle',
    });
    expect(rec.legs[0]?.timeline).toEqual([{ kind: 'start', segment: 'Ringing', at: 2_000 }]);
    expect(t.decision).toBe(decision);
    expect(types(t)).toEqual(['interaction.offered']);
  });

  it('accept → Connected; the Queue applet reports Delivered; ringingMs is exact', () => {
    const { rec, offerId } = offered();
    const t = accept(rec, agent.agentId, offerId, 2_750);
    expect(t.next.state).toBe('connected');
    expect(types(t)).toEqual(['interaction.applet-executed', 'interaction.assigned']);
    expect(t.events[0]?.data.queue).toMatchObject({ result: 'Delivered' });
    expect(t.events[1]?.data).toMatchObject({ ringingMs: 750, offerId, agentId: agent.agentId });
    expect(t.next.syncAgents).toEqual([agent.agentId]);
  });

  it("the provider's notification events name the route and requestId themselves; the others do not", () => {
    const { rec } = connected(3_000);
    const o = offered();
    const assigned = accept(o.rec, agent.agentId, o.offerId, 2_750).events;
    const released = agentRelease(rec, agent.agentId, 6_000).events;
    for (const e of [...assigned, ...released]) {
      const named = e.type === 'interaction.assigned' || e.type === 'interaction.released';
      if (named) expect(e.data).toMatchObject({ route: 'Support', requestId: 'req-1' });
      else expect(e.data).not.toHaveProperty('route');
    }
    expect(assigned.map((e) => e.type)).toContain('interaction.assigned');
    expect(released.map((e) => e.type)).toContain('interaction.released');
    // After a transfer to a route, still the route it was dispatched through (the notification's Route).
    const moved = transferToRoute(rec, agent.agentId, { name: 'Sales', plan: queuePlan() }, 5_000).next;
    expect(moved.route).toBe('Sales');
    expect(apiRelease(moved, 7_000).events.at(-1)?.data).toMatchObject({ route: 'Support', requestId: 'req-1' });
    // A record stored before the dispatch route was kept: its current route.
    const { dispatchRoute: _, ...older } = moved;
    expect(apiRelease(older, 7_000).events.at(-1)?.data).toMatchObject({ route: 'Sales' });
  });

  it('accept by another agent, with another offer id, or after expiry is refused', () => {
    const { rec, offerId } = offered();
    expectCode(() => accept(rec, other.agentId, offerId, 3_000), 'AGENT.INVALID_STATE');
    expectCode(() => accept(rec, agent.agentId, 'nope', 3_000), 'AGENT.INVALID_STATE');
    expectCode(() => accept(rec, agent.agentId, offerId, 22_000), 'AGENT.INVALID_STATE', /expired/);
  });

  it.each([
    'rejected',
    'timed-out',
  ] as const)('%s → counted Unexpected and requeued, keeping the queue entry time', (reason) => {
    const { rec, offerId } = offered();
    const t = endOffer(rec, agent.agentId, offerId, reason === 'rejected' ? 5_000 : 30_000, reason);
    expect(t.next).toMatchObject({ state: 'queued', offer: null, unexpectedOffers: 1, queuedAt: rec.queuedAt });
    expect(t.events[0]?.data).toMatchObject({
      reason,
      outcome: 'Unexpected',
      ringingMs: reason === 'rejected' ? 3_000 : 20_000,
    });
    expect(t.next.legs[0]?.done).toBe(true);
    expect(t.next.legs[0]?.timeline.at(-1)).toMatchObject({
      kind: 'end',
      segment: 'Ringing',
      outcome: 'Unexpected',
      reason,
    });
  });

  it("a failed reservation ends the offer as Failed (not the agent's fault)", () => {
    const { rec, offerId } = offered();
    const t = failOffer(rec, offerId, 2_100);
    expect(t.next.state).toBe('queued');
    expect(t.events[0]?.data).toMatchObject({ reason: 'agent-unavailable', outcome: 'Failed' });
    expect(failOffer(t.next, offerId, 2_200).events).toEqual([]);
  });

  it('a second offer counts attempts', () => {
    const first = offered();
    const requeued = endOffer(first.rec, agent.agentId, first.offerId, 3_000, 'rejected').next;
    const second = offered(requeued, 4_000);
    expect(second.rec.offer?.attempt).toBe(2);
    expect(second.rec.legs).toHaveLength(2);
  });
});

describe('hold, retrieve, release, wrap', () => {
  it('hold ↔ retrieve; the held time is exact', () => {
    const { rec, channelId } = connected();
    const held = hold(rec, agent.agentId, 4_000);
    expect(held.next.state).toBe('held');
    const back = retrieve(held.next, agent.agentId, 4_500);
    expect(back.next.state).toBe('connected');
    expect(back.events[0]?.data.heldMs).toBe(500);
    expect(
      back.next.legs.find((l) => l.channelId === channelId)?.timeline.map((m) => `${m.kind}:${m.segment}`),
    ).toEqual(['start:Ringing', 'end:Ringing', 'start:Connected', 'start:HeldExternalParty', 'end:HeldExternalParty']);
  });

  it('illegal transitions are refused with AGENT.INVALID_STATE', () => {
    const { rec } = connected();
    expectCode(() => retrieve(rec, agent.agentId, 4_000), 'AGENT.INVALID_STATE', /connected/);
    expectCode(() => endWrap(rec, agent.agentId, 4_000), 'AGENT.INVALID_STATE');
    const held = hold(rec, agent.agentId, 4_000).next;
    expectCode(() => hold(held, agent.agentId, 4_100), 'AGENT.INVALID_STATE', /held/);
    const queued = dispatched();
    expectCode(() => accept(queued, agent.agentId, 'x', 1), 'AGENT.INVALID_STATE');
    const ended = apiRelease(queued, 2).next;
    expectCode(() => apiRelease(ended, 3), 'AGENT.INVALID_STATE');
    expectCode(() => queueTimeout(ended, 3), 'AGENT.INVALID_STATE');
  });

  it('actions on an interaction assigned to someone else are not found', () => {
    const { rec } = connected();
    expectCode(() => hold(rec, other.agentId, 4_000), 'REQUEST.NOT_FOUND');
  });

  it('release from Held closes the hold, ends Connected, starts Wrap and releases (who: agent)', () => {
    const { rec } = connected(3_000);
    const held = hold(rec, agent.agentId, 4_000).next;
    const t = agentRelease(held, agent.agentId, 6_000);
    expect(t.next.state).toBe('wrap');
    expect(types(t)).toEqual(['interaction.wrap-started', 'interaction.released']);
    expect(t.events[0]?.data.connectedMs).toBe(3_000);
    expect(t.events[1]?.data).toMatchObject({
      releasedBy: 'agent',
      previousState: 'held',
      endReason: 'Released',
      durationMs: 5_000,
    });
    const end = endWrap(t.next, agent.agentId, 9_000);
    expect(end.next).toMatchObject({ state: 'ended', endedAt: 9_000, liveKey: `none:${rec.interactionId}` });
    expect(end.events[0]?.data.wrapMs).toBe(3_000);
    expect(end.next.legs[0]?.done).toBe(true);
  });

  it('release in wrap ends wrap at once', () => {
    const { rec } = connected();
    const wrap = agentRelease(rec, agent.agentId, 5_000).next;
    expect(types(agentRelease(wrap, agent.agentId, 6_000))).toEqual(['interaction.wrap-ended']);
  });

  it('sequence numbers continue across transitions', () => {
    const { rec } = connected();
    const held = hold(rec, agent.agentId, 4_000);
    expect(held.events[0]?.data.sequence).toBe(rec.seq + 1);
    expect(held.next.seq).toBe(rec.seq + 1);
    expect(held.next.version).toBe(rec.version + 1);
  });
});

describe('release by API', () => {
  it('a queued interaction is removed: the Queue applet reports Released', () => {
    const rec = dispatched();
    const t = apiRelease(rec, 4_000);
    expect(t.next.state).toBe('ended');
    expect(types(t)).toEqual(['interaction.applet-executed', 'interaction.released']);
    expect(t.events[1]?.data).toMatchObject({ releasedBy: 'api', previousState: 'queued', agentId: null });
  });

  it("a ringing offer is withdrawn (outcome null: neither answered nor the agent's failure)", () => {
    const { rec } = offered();
    const t = apiRelease(rec, 4_000);
    expect(t.next.state).toBe('ended');
    expect(t.next.legs[0]?.timeline.at(-1)).toMatchObject({ segment: 'Ringing', outcome: null, reason: 'withdrawn' });
    expect(t.events[0]?.data).toMatchObject({ previousState: 'offered', agentId: agent.agentId });
  });

  it("an assigned interaction ends the agent's work (no wrap)", () => {
    const { rec } = connected();
    const held = hold(rec, agent.agentId, 4_000).next;
    const t = apiRelease(held, 5_000);
    expect(t.next.state).toBe('ended');
    expect(t.next.legs[0]?.timeline.slice(-2).map((m) => `${m.kind}:${m.segment}`)).toEqual([
      'end:HeldExternalParty',
      'end:Connected',
    ]);
    expect(t.events[0]?.data).toMatchObject({ releasedBy: 'api', previousState: 'held' });
  });

  it('in wrap, the wrap ends', () => {
    const { rec } = connected();
    const wrap = agentRelease(rec, agent.agentId, 5_000).next;
    expect(types(apiRelease(wrap, 6_000))).toEqual(['interaction.wrap-ended']);
  });
});

describe('transfer', () => {
  it("to an agent: the agent's work ends and the interaction is requeued with a personal queue for the target", () => {
    const { rec } = connected();
    const t = transferToAgent(rec, agent.agentId, other, 5_000, 120);
    expect(t.next).toMatchObject({
      state: 'queued',
      queuedAt: 5_000,
      agent: null,
      personalQueue: { agent: 'bob', loggedintimeout: 120, loggedouttimeout: 0 },
    });
    expect(t.events[0]?.data.target).toEqual({ kind: 'agent', agentUsername: 'bob' });
    expect(t.next.legs[0]?.done).toBe(true);
  });

  it('to oneself is refused', () => {
    const { rec } = connected();
    expectCode(() => transferToAgent(rec, agent.agentId, agent, 5_000, 120), 'AGENT.INVALID_STATE');
  });

  it("to a route: the route's plan runs from its first applet with the dispatch's own skills", () => {
    const { rec } = connected();
    const plan = queuePlan({
      name: 'Sales Plan',
      applets: [
        { type: 'SkillTagger', name: 'Tag', skills: [{ name: 'Sales' }] },
        { type: 'Queue', name: 'Sales queue' },
      ],
    });
    const t = transferToRoute(rec, agent.agentId, { name: 'Sales', plan }, 5_000);
    expect(t.next).toMatchObject({ state: 'queued', route: 'Sales', personalQueue: null });
    expect(t.next.skills).toEqual([{ name: 'Sales', expiryafter: null }]);
    expect(types(t)).toEqual(['interaction.transferred', 'interaction.applet-executed']);
  });

  it('is not allowed while ringing or in wrap', () => {
    const o = offered();
    expectCode(() => transferToAgent(o.rec, agent.agentId, other, 5_000, 1), 'REQUEST.NOT_FOUND');
    const { rec } = connected();
    const wrap = agentRelease(rec, agent.agentId, 5_000).next;
    expectCode(() => transferToAgent(wrap, agent.agentId, other, 6_000, 1), 'AGENT.INVALID_STATE');
  });
});

describe('queue timeout', () => {
  const plan = queuePlan({
    applets: [
      { type: 'Queue', name: 'First', timeoutSeconds: 10, onTimeout: { action: 'goto', target: 'second' } },
      { type: 'Announcement', name: 'Skipped', message: 'x' },
      { type: 'Queue', name: 'Second', timeoutSeconds: 20, onTimeout: { action: 'release' } },
    ],
  });

  it('goto: continues at the target applet with a new queue entry', () => {
    const rec = dispatched({ plan, now: 0 });
    expect(rec.queue?.timeoutAt).toBe(10_000);
    const t = queueTimeout(rec, 10_000);
    expect(t.next.queue).toMatchObject({ name: 'Second', enteredAt: 10_000, timeoutAt: 30_000 });
    expect(t.next.queuedAt).toBe(10_000);
    expect(t.events[0]?.data.queue).toMatchObject({ result: 'TimedOut' });
  });

  it('release: the system releases the interaction', () => {
    const rec = queueTimeout(dispatched({ plan, now: 0 }), 10_000).next;
    const t = queueTimeout(rec, 30_000);
    expect(t.next.state).toBe('ended');
    expect(t.events.at(-1)?.data).toMatchObject({ releasedBy: 'system', endReason: 'QueueTimeout' });
  });

  it('next (default): continues with the following applet; the plan end releases', () => {
    const p = queuePlan({ applets: [{ type: 'Queue', name: 'Only', timeoutSeconds: 5 }] });
    const t = queueTimeout(dispatched({ plan: p, now: 0 }), 5_000);
    expect(t.next.state).toBe('ended');
    expect(t.events.at(-1)?.data).toMatchObject({ releasedBy: 'system', endReason: 'PlanEnded' });
  });
});

describe('records are not mutated', () => {
  it('transitions return new records', () => {
    const rec: InteractionRecord = dispatched();
    const copy = structuredClone(rec);
    offerTo(rec, agent, decision, ids(), 2_000, 1_000);
    apiRelease(rec, 3_000);
    expect(rec).toEqual(copy);
  });
});

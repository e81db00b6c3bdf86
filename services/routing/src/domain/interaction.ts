import { routingError } from './errors';
import { type AppletRun, afterQueueTimeout, type PlanRun, runPlan } from './plan';
import { iso } from './time';
import type {
  Assignment,
  Decision,
  DomainEvent,
  EffectivePermissions,
  InteractionRecord,
  InteractionState,
  InteractionType,
  Leg,
  LinkedDataItem,
  Milestone,
  OfferEndReason,
  PersonalQueue,
  Plan,
  SkillRequirement,
} from './types';

/** A change of an interaction: its next state and the events announcing it (in order). */
export interface Transition {
  next: InteractionRecord;
  events: DomainEvent[];
  /** The routing decision this change carries out (recorded in the interaction's trace). */
  decision?: Decision;
}

/** Operations on an interaction; each is allowed only from some states. */
export type InteractionAction =
  | 'offer'
  | 'accept'
  | 'reject'
  | 'offer-timeout'
  | 'hold'
  | 'retrieve'
  | 'transfer'
  | 'release'
  | 'end-wrap'
  | 'api-release'
  | 'queue-timeout';

/**
 * The interaction state machine: Queued → Offered (Ringing) → Connected ↔ Held → Wrap → Ended;
 * reject or offer timeout go back to Queued; transfer requeues; release by API ends from any live state.
 */
export const allowedFrom: Readonly<Record<InteractionAction, readonly InteractionState[]>> = {
  offer: ['queued'],
  accept: ['offered'],
  reject: ['offered'],
  'offer-timeout': ['offered'],
  hold: ['connected'],
  retrieve: ['held'],
  transfer: ['connected', 'held'],
  release: ['connected', 'held', 'wrap'],
  'end-wrap': ['wrap'],
  'api-release': ['queued', 'offered', 'connected', 'held', 'wrap'],
  'queue-timeout': ['queued'],
};

/** Whether `action` is allowed in `state`. */
export function canApply(state: InteractionState, action: InteractionAction): boolean {
  return allowedFrom[action].includes(state);
}

/** Throws AGENT.INVALID_STATE (409) when the action is not allowed in the interaction's state. */
export function assertCanApply(
  rec: Pick<InteractionRecord, 'state' | 'interactionId'>,
  action: InteractionAction,
): void {
  if (!canApply(rec.state, action)) {
    throw routingError(
      'AGENT.INVALID_STATE',
      `Cannot ${action} interaction ${rec.interactionId}: it is ${rec.state}`,
      [],
      {
        state: rec.state,
      },
    );
  }
}

/** The medium reported for an interaction type. */
export function mediumOf(type: InteractionType): string {
  return type === 'live' ? 'Phone' : type === 'chat' ? 'Chat' : 'ApiObject';
}

/** Builds events for one interaction with consecutive sequence numbers and the common fields. */
class Emitter {
  readonly events: DomainEvent[] = [];
  constructor(private rec: InteractionRecord) {}

  emit(type: string, at: number, data: Record<string, unknown>): void {
    this.rec = { ...this.rec, seq: this.rec.seq + 1 };
    this.events.push({
      type,
      at,
      data: {
        interactionId: this.rec.interactionId,
        conversationId: this.rec.conversationId,
        accountId: this.rec.accountId,
        externalId: this.rec.externalId,
        provider: this.rec.provider,
        interactionType: this.rec.type,
        medium: this.rec.medium,
        mediumManager: 'CC',
        direction: 'Inbound',
        occurredAt: iso(at),
        sequence: this.rec.seq,
        // What the provider's notification names (as on interaction.queued: the route it was dispatched through):
        // an assignment or a release read alone (its queued event not consumed yet, e.g. published late by another
        // instance) still has them.
        ...(type === 'interaction.assigned' || type === 'interaction.released'
          ? { route: this.rec.dispatchRoute ?? this.rec.route, requestId: this.rec.requestId }
          : {}),
        ...data,
      },
    });
  }

  get seq(): number {
    return this.rec.seq;
  }

  applets(rec: InteractionRecord, runs: AppletRun[]): void {
    for (const r of runs) {
      this.emit('interaction.applet-executed', r.startedAt + r.durationMs, {
        interactionPlan: rec.plan.name,
        reportingGroup: rec.plan.reportingGroup,
        applet: r.applet,
        startedAt: iso(r.startedAt),
        durationMs: r.durationMs,
        dataSource: r.dataSource,
        queue: r.queue,
        ...(r.detail ? { detail: r.detail } : {}),
      });
    }
  }
}

function agentRef(leg: Pick<Leg, 'agentId' | 'agentUsername' | 'channelId'>) {
  return { agentId: leg.agentId, agentUsername: leg.agentUsername, channelId: leg.channelId };
}

function withMilestones(legs: Leg[], channelId: string, milestones: Milestone[], done = false): Leg[] {
  return legs.map((l) =>
    l.channelId === channelId ? { ...l, timeline: [...l.timeline, ...milestones], done: l.done || done } : l,
  );
}

function liveKeyOf(provider: string | null, externalId: string | null, interactionId: string): string {
  return externalId === null ? `none:${interactionId}` : `live:${provider ?? ''}\u001f${externalId}`;
}

/** The key under which a live interaction is found for release by (provider, externalId). */
export function releaseKey(provider: string | null, externalId: string): string {
  return `live:${provider ?? ''}\u001f${externalId}`;
}

/** The Queue applet's own event when the interaction leaves it. */
function queueRun(
  rec: InteractionRecord,
  now: number,
  result: 'Delivered' | 'TimedOut' | 'Released',
): AppletRun | null {
  if (!rec.queue) return null;
  return {
    applet: { name: rec.queue.name, type: 'Queue' },
    startedAt: rec.queue.enteredAt,
    durationMs: Math.max(0, now - rec.queue.enteredAt),
    dataSource: null,
    queue: { virtualQueues: [rec.queue.virtualQueue], presentedSkills: rec.skills.map((s) => s.name), result },
  };
}

/** Applies a plan run's outcome: wait in its Queue applet, or end (released by the system). */
function settlePlan(rec: InteractionRecord, run: PlanRun, em: Emitter, now: number): InteractionRecord {
  let next: InteractionRecord = {
    ...rec,
    skills: run.skills,
    dataSources: run.dataSources,
    recording: run.recording,
  };
  em.applets(next, run.runs);
  if (run.stop.kind === 'queue') {
    return {
      ...next,
      state: 'queued',
      queuedAt: now,
      queue: {
        appletIndex: run.stop.appletIndex,
        name: run.stop.name,
        virtualQueue: run.stop.virtualQueue,
        enteredAt: now,
        timeoutAt: run.stop.timeoutSeconds === null ? null : now + run.stop.timeoutSeconds * 1000,
      },
      offer: null,
      agent: null,
    };
  }
  const previous = next.state === 'ended' ? 'queued' : next.state;
  next = endInteraction(next, now);
  em.emit('interaction.released', now, {
    releasedBy: 'system',
    agentId: null,
    agentUsername: null,
    channelId: null,
    previousState:
      previous === 'offered' || previous === 'connected' || previous === 'held' || previous === 'wrap'
        ? previous
        : 'queued',
    endReason: run.stop.reason,
    durationMs: Math.max(0, now - rec.createdAt),
  });
  return next;
}

function endInteraction(rec: InteractionRecord, now: number): InteractionRecord {
  return {
    ...rec,
    state: 'ended',
    endedAt: now,
    queue: null,
    offer: null,
    liveKey: `none:${rec.interactionId}`,
  };
}

function finish(rec: InteractionRecord, em: Emitter, syncAgents: string[] = []): Transition {
  return {
    next: {
      ...rec,
      seq: em.seq,
      version: rec.version + 1,
      syncAgents: [...new Set(syncAgents)],
    },
    events: em.events,
  };
}

/** What a dispatch needs beyond the request: ids, the located route and plan, the provider. */
export interface DispatchInput {
  interactionId: string;
  conversationId: string;
  accountId: string;
  requestId: string | null;
  externalId: string | null;
  provider: { name: string; permissions: EffectivePermissions } | null;
  route: string;
  plan: Plan;
  type: InteractionType;
  linkeddata: LinkedDataItem[];
  skills: SkillRequirement[];
  personalQueue: PersonalQueue | null;
  now: number;
}

/**
 * A dispatched interaction: `interaction.queued`, then the plan's applets up to its Queue applet
 * (the interaction waits there), or to the plan's end (released by the system at once).
 */
export function createInteraction(input: DispatchInput): Transition {
  const { now } = input;
  const base: InteractionRecord = {
    interactionId: input.interactionId,
    accountId: input.accountId,
    conversationId: input.conversationId,
    requestId: input.requestId,
    externalId: input.externalId,
    provider: input.provider?.name ?? null,
    permissions: input.provider?.permissions ?? null,
    type: input.type,
    medium: mediumOf(input.type),
    route: input.route,
    dispatchRoute: input.route,
    plan: input.plan,
    linkeddata: input.linkeddata,
    dataSources: [],
    baseSkills: input.skills,
    skills: input.skills,
    personalQueue: input.personalQueue,
    recording: false,
    state: 'queued',
    createdAt: now,
    queuedAt: null,
    queue: null,
    offer: null,
    agent: null,
    legs: [],
    offerAttempts: 0,
    unexpectedOffers: 0,
    decisions: [],
    lastDecisionSig: null,
    endedAt: null,
    liveKey: liveKeyOf(input.provider?.name ?? null, input.externalId, input.interactionId),
    syncAgents: [],
    seq: 0,
    version: 0,
  };
  const em = new Emitter(base);
  const clid = input.linkeddata.find((l) => l.type === 'clid');
  em.emit('interaction.queued', now, {
    requestId: input.requestId,
    route: input.route,
    interactionPlan: input.plan.name,
    reportingGroup: input.plan.reportingGroup,
    serviceName: input.route,
    connectTo: null,
    connectFrom: clid && 'value' in clid ? (clid.value ?? null) : null,
    interactionPlanMapping: {
      addressName: input.route,
      mappingName: input.route,
      interactionPlanName: input.plan.name,
    },
    linkeddata: input.linkeddata,
    skills: input.skills.map((s) => ({ name: s.name, expiryafter: s.expiryafter })),
    personalQueue: input.personalQueue,
  });
  const run = runPlan(
    input.plan,
    0,
    { linkeddata: input.linkeddata, skills: input.skills, dataSources: [], recording: false },
    now,
  );
  const next = settlePlan(base, run, em, now);
  return { next: { ...next, seq: em.seq, version: 0 }, events: em.events };
}

/** The agent routing offers the interaction to. */
export interface OfferTarget {
  agentId: string;
  username: string;
}

/** Routing chose an agent: the offer rings (Ringing starts) until `now + offerTimeoutMs`. */
export function offerTo(
  rec: InteractionRecord,
  agent: OfferTarget,
  decision: Decision,
  ids: { offerId: string; channelId: string },
  now: number,
  offerTimeoutMs: number,
): Transition {
  assertCanApply(rec, 'offer');
  const em = new Emitter(rec);
  const attempt = rec.offerAttempts + 1;
  const offer = {
    offerId: ids.offerId,
    agentId: agent.agentId,
    agentUsername: agent.username,
    channelId: ids.channelId,
    offeredAt: now,
    expiresAt: now + offerTimeoutMs,
    attempt,
    rule: decision.rule,
  };
  const leg: Leg = {
    channelId: ids.channelId,
    offerId: ids.offerId,
    agentId: agent.agentId,
    agentUsername: agent.username,
    timeline: [{ kind: 'start', segment: 'Ringing', at: now }],
    done: false,
  };
  em.emit('interaction.offered', now, {
    ...agentRef(leg),
    offerId: offer.offerId,
    expiresAt: iso(offer.expiresAt),
    rule: decision.rule,
    attempt,
  });
  return {
    ...finish(
      { ...rec, state: 'offered', offer, offerAttempts: attempt, legs: [...rec.legs, leg], lastDecisionSig: null },
      em,
    ),
    decision,
  };
}

function assertOfferOf(
  rec: InteractionRecord,
  agentId: string,
  offerId: string,
): NonNullable<InteractionRecord['offer']> {
  const offer = rec.offer;
  if (!offer || offer.agentId !== agentId || offer.offerId !== offerId) {
    throw routingError('AGENT.INVALID_STATE', `Offer ${offerId} is no longer ringing at this agent`, [], {
      state: rec.state,
    });
  }
  return offer;
}

/** The agent accepted the offer: assigned, Connected starts; the Queue applet delivered. */
export function accept(rec: InteractionRecord, agentId: string, offerId: string, now: number): Transition {
  assertCanApply(rec, 'accept');
  const offer = assertOfferOf(rec, agentId, offerId);
  if (now >= offer.expiresAt) {
    throw routingError('AGENT.INVALID_STATE', `Offer ${offerId} expired at ${iso(offer.expiresAt)}`, [], {
      state: rec.state,
    });
  }
  const em = new Emitter(rec);
  const delivered = queueRun(rec, now, 'Delivered');
  if (delivered) em.applets(rec, [delivered]);
  em.emit('interaction.assigned', now, { ...agentRef(offer), offerId, ringingMs: now - offer.offeredAt });
  const agent: Assignment = {
    agentId,
    agentUsername: offer.agentUsername,
    channelId: offer.channelId,
    offerId,
    connectedAt: now,
    heldAt: null,
    wrapAt: null,
  };
  const legs = withMilestones(rec.legs, offer.channelId, [
    { kind: 'end', segment: 'Ringing', at: now, outcome: 'Answered' },
    { kind: 'start', segment: 'Connected', at: now },
  ]);
  return finish({ ...rec, state: 'connected', offer: null, agent, legs }, em, [agentId]);
}

/**
 * The offer ended unanswered (rejected by the agent, or timed out): counted Unexpected and requeued
 * in the same Queue applet, keeping its place (queue entry time unchanged).
 */
export function endOffer(
  rec: InteractionRecord,
  agentId: string,
  offerId: string,
  now: number,
  reason: Extract<OfferEndReason, 'rejected' | 'timed-out'>,
): Transition {
  assertCanApply(rec, reason === 'rejected' ? 'reject' : 'offer-timeout');
  const offer = assertOfferOf(rec, agentId, offerId);
  const at = reason === 'timed-out' ? Math.max(offer.offeredAt, Math.min(now, offer.expiresAt)) : now;
  const em = new Emitter(rec);
  em.emit('interaction.rejected', at, {
    ...agentRef(offer),
    offerId,
    ringingMs: at - offer.offeredAt,
    reason,
    outcome: 'Unexpected',
  });
  const legs = withMilestones(
    rec.legs,
    offer.channelId,
    [{ kind: 'end', segment: 'Ringing', at, outcome: 'Unexpected', reason }],
    true,
  );
  return finish({ ...rec, state: 'queued', offer: null, legs, unexpectedOffers: rec.unexpectedOffers + 1 }, em, [
    agentId,
  ]);
}

/**
 * The reservation at the agent failed after the offer was written (the agent vanished): the offer
 * ends as Failed (a system failure, not the agent's) and the interaction is requeued.
 */
export function failOffer(rec: InteractionRecord, offerId: string, now: number): Transition {
  const offer = rec.offer;
  if (rec.state !== 'offered' || !offer || offer.offerId !== offerId) return { next: rec, events: [] };
  const em = new Emitter(rec);
  em.emit('interaction.rejected', now, {
    ...agentRef(offer),
    offerId,
    ringingMs: now - offer.offeredAt,
    reason: 'agent-unavailable',
    outcome: 'Failed',
  });
  const legs = withMilestones(
    rec.legs,
    offer.channelId,
    [{ kind: 'end', segment: 'Ringing', at: now, outcome: 'Failed', reason: 'agent-unavailable' }],
    true,
  );
  return finish({ ...rec, state: 'queued', offer: null, legs }, em, [offer.agentId]);
}

function assertAgentOf(rec: InteractionRecord, agentId: string): Assignment {
  if (!rec.agent || rec.agent.agentId !== agentId) {
    throw routingError('REQUEST.NOT_FOUND', `Interaction ${rec.interactionId} is not assigned to agent ${agentId}`);
  }
  return rec.agent;
}

/** The agent held the external party (HeldExternalParty starts inside Connected). */
export function hold(rec: InteractionRecord, agentId: string, now: number): Transition {
  const agent = assertAgentOf(rec, agentId);
  assertCanApply(rec, 'hold');
  const em = new Emitter(rec);
  em.emit('interaction.held', now, agentRef(agent));
  const legs = withMilestones(rec.legs, agent.channelId, [{ kind: 'start', segment: 'HeldExternalParty', at: now }]);
  return finish({ ...rec, state: 'held', agent: { ...agent, heldAt: now }, legs }, em, [agentId]);
}

/** The agent retrieved the held party. */
export function retrieve(rec: InteractionRecord, agentId: string, now: number): Transition {
  const agent = assertAgentOf(rec, agentId);
  assertCanApply(rec, 'retrieve');
  const em = new Emitter(rec);
  em.emit('interaction.retrieved', now, { ...agentRef(agent), heldMs: now - (agent.heldAt ?? now) });
  const legs = withMilestones(rec.legs, agent.channelId, [{ kind: 'end', segment: 'HeldExternalParty', at: now }]);
  return finish({ ...rec, state: 'connected', agent: { ...agent, heldAt: null }, legs }, em, [agentId]);
}

/** Milestones closing the conversation: a running hold, then Connected. */
function endConversation(agent: Assignment, now: number): Milestone[] {
  return [
    ...(agent.heldAt !== null ? [{ kind: 'end', segment: 'HeldExternalParty', at: now } as Milestone] : []),
    { kind: 'end', segment: 'Connected', at: now },
  ];
}

/**
 * The agent released the interaction. From Connected or Held: the conversation ends, the agent enters
 * wrap and the interaction is released (the provider is told). In wrap: wrap ends at once.
 */
export function agentRelease(rec: InteractionRecord, agentId: string, now: number): Transition {
  const agent = assertAgentOf(rec, agentId);
  assertCanApply(rec, 'release');
  if (rec.state === 'wrap') return endWrap(rec, agentId, now);
  const em = new Emitter(rec);
  em.emit('interaction.wrap-started', now, { ...agentRef(agent), connectedMs: now - agent.connectedAt });
  em.emit('interaction.released', now, {
    releasedBy: 'agent',
    ...agentRef(agent),
    previousState: rec.state,
    endReason: 'Released',
    durationMs: now - rec.createdAt,
  });
  const legs = withMilestones(rec.legs, agent.channelId, [
    ...endConversation(agent, now),
    { kind: 'start', segment: 'Wrap', at: now },
  ]);
  return finish({ ...rec, state: 'wrap', agent: { ...agent, heldAt: null, wrapAt: now }, legs }, em, [agentId]);
}

/** The agent ended wrap: the agent's work on the interaction is over. */
export function endWrap(rec: InteractionRecord, agentId: string, now: number): Transition {
  const agent = assertAgentOf(rec, agentId);
  assertCanApply(rec, 'end-wrap');
  const em = new Emitter(rec);
  em.emit('interaction.wrap-ended', now, { ...agentRef(agent), wrapMs: now - (agent.wrapAt ?? now) });
  const legs = withMilestones(rec.legs, agent.channelId, [{ kind: 'end', segment: 'Wrap', at: now }], true);
  return finish(endInteraction({ ...rec, legs }, now), em, [agentId]);
}

/** Requeue after a transfer: a new queue entry in the same Queue applet (fresh timeout). */
function requeueAt(rec: InteractionRecord, now: number): InteractionRecord {
  const applet = rec.queue ? rec.plan.applets[rec.queue.appletIndex] : undefined;
  const timeoutSeconds = applet?.type === 'Queue' ? (applet.timeoutSeconds ?? null) : null;
  return {
    ...rec,
    state: 'queued',
    queuedAt: now,
    queue: rec.queue
      ? { ...rec.queue, enteredAt: now, timeoutAt: timeoutSeconds === null ? null : now + timeoutSeconds * 1000 }
      : { appletIndex: -1, name: 'Transfer', virtualQueue: rec.route, enteredAt: now, timeoutAt: null },
    offer: null,
    agent: null,
    lastDecisionSig: null,
  };
}

/**
 * The agent transferred the interaction to another agent: the agent's work ends and the interaction
 * is requeued with that agent as its personal queue for `windowSeconds` (then normal routing).
 */
export function transferToAgent(
  rec: InteractionRecord,
  agentId: string,
  target: { agentId: string; username: string },
  now: number,
  windowSeconds: number,
): Transition {
  const agent = assertAgentOf(rec, agentId);
  assertCanApply(rec, 'transfer');
  if (target.agentId === agentId)
    throw routingError('AGENT.INVALID_STATE', 'An interaction cannot be transferred to the agent who has it');
  const em = new Emitter(rec);
  em.emit('interaction.transferred', now, {
    ...agentRef(agent),
    target: { kind: 'agent', agentUsername: target.username },
  });
  const legs = withMilestones(rec.legs, agent.channelId, endConversation(agent, now), true);
  const personalQueue: PersonalQueue = { agent: target.username, loggedintimeout: windowSeconds, loggedouttimeout: 0 };
  return finish({ ...requeueAt({ ...rec, legs }, now), personalQueue }, em, [agentId]);
}

/**
 * The agent transferred the interaction to a route: the agent's work ends and the route's plan runs
 * from its first applet (skills: the dispatch's own plus the new plan's; no personal queue).
 */
export function transferToRoute(
  rec: InteractionRecord,
  agentId: string,
  route: { name: string; plan: Plan },
  now: number,
): Transition {
  const agent = assertAgentOf(rec, agentId);
  assertCanApply(rec, 'transfer');
  const em = new Emitter(rec);
  em.emit('interaction.transferred', now, { ...agentRef(agent), target: { kind: 'route', route: route.name } });
  const legs = withMilestones(rec.legs, agent.channelId, endConversation(agent, now), true);
  const moved: InteractionRecord = {
    ...rec,
    legs,
    route: route.name,
    plan: route.plan,
    personalQueue: null,
    agent: null,
    offer: null,
    queue: null,
    state: 'queued',
    lastDecisionSig: null,
  };
  const run = runPlan(
    route.plan,
    0,
    { linkeddata: rec.linkeddata, skills: rec.baseSkills, dataSources: rec.dataSources, recording: rec.recording },
    now,
  );
  return finish(settlePlan(moved, run, em, now), em, [agentId]);
}

/**
 * Release by API (Invoke `release`): removes a queued interaction; withdraws a ringing offer; ends
 * the agent's work on an assigned one (no wrap); in wrap, ends wrap.
 */
export function apiRelease(rec: InteractionRecord, now: number): Transition {
  assertCanApply(rec, 'api-release');
  const em = new Emitter(rec);
  const released = (previousState: InteractionState, ref: ReturnType<typeof agentRef> | null) =>
    em.emit('interaction.released', now, {
      releasedBy: 'api',
      agentId: ref?.agentId ?? null,
      agentUsername: ref?.agentUsername ?? null,
      channelId: ref?.channelId ?? null,
      previousState,
      endReason: 'Released',
      durationMs: now - rec.createdAt,
    });
  switch (rec.state) {
    case 'queued': {
      const run = queueRun(rec, now, 'Released');
      if (run) em.applets(rec, [run]);
      released('queued', null);
      return finish(endInteraction(rec, now), em);
    }
    case 'offered': {
      const offer = rec.offer as NonNullable<InteractionRecord['offer']>;
      released('offered', agentRef(offer));
      const legs = withMilestones(
        rec.legs,
        offer.channelId,
        [{ kind: 'end', segment: 'Ringing', at: now, outcome: null, reason: 'withdrawn' }],
        true,
      );
      return finish(endInteraction({ ...rec, legs }, now), em, [offer.agentId]);
    }
    case 'wrap': {
      const agent = rec.agent as Assignment;
      return endWrap(rec, agent.agentId, now);
    }
    default: {
      const agent = rec.agent as Assignment;
      released(rec.state, agentRef(agent));
      const legs = withMilestones(rec.legs, agent.channelId, endConversation(agent, now), true);
      return finish(endInteraction({ ...rec, legs, agent: { ...agent, heldAt: null } }, now), em, [agent.agentId]);
    }
  }
}

/** The Queue applet's timeout passed: follow its onTimeout (next applet, goto, or release). */
export function queueTimeout(rec: InteractionRecord, now: number): Transition {
  assertCanApply(rec, 'queue-timeout');
  if (!rec.queue) return { next: rec, events: [] };
  const em = new Emitter(rec);
  const run = queueRun(rec, now, 'TimedOut');
  if (run) em.applets(rec, [run]);
  const after = afterQueueTimeout(rec.plan, rec.queue.appletIndex);
  if (after === 'release') {
    em.emit('interaction.released', now, {
      releasedBy: 'system',
      agentId: null,
      agentUsername: null,
      channelId: null,
      previousState: 'queued',
      endReason: 'QueueTimeout',
      durationMs: now - rec.createdAt,
    });
    return finish(endInteraction(rec, now), em);
  }
  const planRun = runPlan(
    rec.plan,
    after,
    { linkeddata: rec.linkeddata, skills: rec.skills, dataSources: rec.dataSources, recording: rec.recording },
    now,
  );
  return finish(settlePlan({ ...rec, queue: null }, planRun, em, now), em);
}

/** Whether the interaction is still in routing (not ended). */
export function isLive(rec: Pick<InteractionRecord, 'state'>): boolean {
  return rec.state !== 'ended';
}

import type { AgentView, RoutingRequest } from '../../src/domain/eligibility';
import { createInteraction, type DispatchInput } from '../../src/domain/interaction';
import type { AgentRecord, InteractionRecord, Plan } from '../../src/domain/types';

let n = 0;
const id = (prefix: string) => {
  n++;
  return `${prefix.padEnd(8, '0').slice(0, 8)}-0000-4000-8000-${String(n).padStart(12, '0')}`;
};

/** A Ready agent with free capacity and no skills, idle since t=0. */
export function agentView(over: Partial<AgentView> = {}): AgentView {
  return {
    agentId: id('a'),
    username: `agent${n}`,
    presence: 'Ready',
    capacity: { calls: 1, semiLive: 2, nonLive: 5 },
    workload: { calls: 0, semiLive: 0, nonLive: 0 },
    skills: [],
    idleSince: 0,
    ...over,
  };
}

/** A live interaction queued at t=0 with no skills and no personal queue. */
export function request(over: Partial<RoutingRequest> = {}): RoutingRequest {
  return { type: 'live', queuedAt: 0, skills: [], personalQueue: null, ...over };
}

/** A stored agent record (LoggedOut, never logged in). */
export function agentRecord(over: Partial<AgentRecord> = {}): AgentRecord {
  return {
    agentId: id('ag'),
    accountId: 'acme',
    username: 'jane',
    displayName: null,
    skills: [],
    capacity: { calls: 1, semiLive: 2, nonLive: 5 },
    presence: 'LoggedOut',
    presenceReason: null,
    presenceSince: 0,
    everLoggedIn: false,
    idleSince: 0,
    missedOffers: 0,
    work: [],
    workloadSince: null,
    activitySeq: 0,
    createdAt: 0,
    version: 0,
    ...over,
  };
}

/** A one-Queue-applet plan. */
export function queuePlan(over: Partial<Plan> = {}): Plan {
  return {
    name: 'Support Plan',
    reportingGroup: 'Support',
    applets: [{ type: 'Queue', name: 'Support queue' }],
    ...over,
  };
}

/** A freshly dispatched interaction (queued in its plan's Queue applet at `now`). */
export function dispatched(over: Partial<DispatchInput> = {}): InteractionRecord {
  return createInteraction({
    interactionId: id('i'),
    conversationId: id('c'),
    accountId: 'acme',
    requestId: 'req-1',
    externalId: 'ext-1',
    provider: null,
    route: 'Support',
    plan: queuePlan(),
    type: 'live',
    linkeddata: [],
    skills: [],
    personalQueue: null,
    now: 1_000,
    ...over,
  }).next;
}

/** Fresh GUID-shaped ids for offers and channels. */
export function ids() {
  return { offerId: id('o'), channelId: id('ch') };
}

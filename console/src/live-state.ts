import type { InteractionRecord, PresenceState, Workload } from '@cc/contracts';

/** Where an interaction is, as the Live page shows it. */
export type LiveStage = 'queued' | 'offered' | 'connected' | 'held' | 'wrap';

/** One interaction that has not ended yet. */
export interface LiveInteraction {
  interactionId: string;
  route: string;
  stage: LiveStage;
  /** When it entered routing (ms since epoch): the wait runs from here until an agent takes it. */
  queuedAt: number;
  agentId?: string;
}

/** One agent as the Live page shows it. */
export interface LiveAgent {
  agentId: string;
  username: string;
  presence: PresenceState;
  workload: Workload;
}

/** A queue of one route: what waits in it now. */
export interface QueueView {
  route: string;
  waiting: number;
  /** Wait of the oldest waiting interaction in seconds, or null when none waits. */
  oldestWaitSeconds: number | null;
  /** Interactions of the route with an agent (offered, connected, held, wrap). */
  withAgents: number;
}

/** The Live page's model: fed by the event stream, or rebuilt from REST snapshots when there is none. */
export interface LiveState {
  interactions: Map<string, LiveInteraction>;
  agents: Map<string, LiveAgent>;
  /** Known route names (from /admin/routes), shown even when empty. */
  routes: Set<string>;
  /** Answer times (ms from queued to assigned) and abandons, for the service level. */
  answeredMs: number[];
  abandoned: number;
  /** Event ids applied, so a resumed stream does not count an event twice (bounded). */
  seen: Set<string>;
  /** When the state last changed (ms), for the page's "updated" line. */
  updatedAt: number;
}

/** An empty state. */
export function emptyLiveState(): LiveState {
  return {
    interactions: new Map(),
    agents: new Map(),
    routes: new Set(),
    answeredMs: [],
    abandoned: 0,
    seen: new Set(),
    updatedAt: 0,
  };
}

/** The CloudEvents envelope fields the Live page reads. */
export interface StreamEvent {
  id: string;
  type: string;
  time: string;
  data: Record<string, unknown>;
}

const noWork: Workload = { calls: 0, semiLive: 0, nonLive: 0 };
const maxSeen = 5000;
const maxAnswers = 1000;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * Applies one event of the stream to the state (mutating it); events of other types are ignored.
 * Returns whether anything changed.
 */
export function applyEvent(state: LiveState, ev: StreamEvent): boolean {
  if (state.seen.has(ev.id)) return false;
  state.seen.add(ev.id);
  if (state.seen.size > maxSeen) state.seen.delete(state.seen.values().next().value as string);
  const d = ev.data;
  const at = Date.parse(str(d.occurredAt) ?? ev.time);
  const id = str(d.interactionId);
  const agentId = str(d.agentId);
  const current = id ? state.interactions.get(id) : undefined;
  let changed = true;
  switch (ev.type) {
    case 'interaction.queued': {
      const route = str(d.route) ?? 'unknown';
      state.routes.add(route);
      if (id) state.interactions.set(id, { interactionId: id, route, stage: 'queued', queuedAt: at });
      break;
    }
    case 'interaction.offered':
      if (current) Object.assign(current, { stage: 'offered', agentId });
      break;
    case 'interaction.rejected':
      if (current) {
        current.stage = 'queued';
        delete current.agentId;
      }
      break;
    case 'interaction.assigned':
      if (current) {
        if (current.stage === 'queued' || current.stage === 'offered') {
          state.answeredMs.push(at - current.queuedAt);
          if (state.answeredMs.length > maxAnswers) state.answeredMs.shift();
        }
        Object.assign(current, { stage: 'connected', agentId });
      }
      break;
    case 'interaction.held':
      if (current) current.stage = 'held';
      break;
    case 'interaction.retrieved':
    case 'interaction.wrap-ended':
      if (current) current.stage = 'connected';
      break;
    case 'interaction.wrap-started':
      if (current) current.stage = 'wrap';
      break;
    case 'interaction.transferred':
      // To a route it waits again (the transfer's own queued event, if any, resets the route).
      if (current && (d.target as { kind?: string } | undefined)?.kind === 'route') {
        current.stage = 'queued';
        delete current.agentId;
      }
      break;
    case 'interaction.released':
      if (current && (current.stage === 'queued' || current.stage === 'offered')) state.abandoned++;
      if (id) state.interactions.delete(id);
      break;
    case 'agent-activity.presence-changed':
    case 'agent-activity.workload-changed': {
      if (!agentId) return false;
      const agent = state.agents.get(agentId) ?? {
        agentId,
        username: str(d.agentUsername) ?? agentId,
        presence: 'LoggedOut' as PresenceState,
        workload: { ...noWork },
      };
      if (ev.type === 'agent-activity.presence-changed') agent.presence = d.presence as PresenceState;
      else agent.workload = { ...(d.workload as Workload) };
      state.agents.set(agentId, agent);
      break;
    }
    default:
      changed = false;
  }
  if (changed) state.updatedAt = Math.max(state.updatedAt, at || 0);
  return changed;
}

/**
 * Rebuilds the interactions of the state from statistics records (REST, when no event stream is served):
 * an in-progress record with no agent channel yet waits in the queue of its route; one with an agent
 * channel is with that agent.
 */
export function interactionsFromRecords(state: LiveState, records: InteractionRecord[]): void {
  state.interactions.clear();
  for (const r of records) {
    const route = r.interactionPlanMapping?.addressName ?? 'unknown';
    state.routes.add(route);
    if (r.status !== 'InProgress') continue;
    const agentChannel = [...r.channels].reverse().find((c) => c.party.role === 'Agent');
    const queuedAt = Date.parse(r.start);
    if (!agentChannel || agentChannel.endReason) {
      state.interactions.set(r.guid, { interactionId: r.guid, route, stage: 'queued', queuedAt });
      continue;
    }
    const last = agentChannel.events[agentChannel.events.length - 1]?.type;
    const stage: LiveStage =
      last === 'Ringing' ? 'offered' : last === 'Wrap' ? 'wrap' : last === 'HeldExternalParty' ? 'held' : 'connected';
    state.interactions.set(r.guid, {
      interactionId: r.guid,
      route,
      stage,
      queuedAt,
      ...(agentChannel.party.id ? { agentId: agentChannel.party.id } : {}),
    });
  }
}

/** The queues per route, sorted by name. */
export function queues(state: LiveState, now: number): QueueView[] {
  const byRoute = new Map<string, QueueView>();
  for (const route of state.routes) byRoute.set(route, { route, waiting: 0, oldestWaitSeconds: null, withAgents: 0 });
  for (const i of state.interactions.values()) {
    const q = byRoute.get(i.route) ?? { route: i.route, waiting: 0, oldestWaitSeconds: null, withAgents: 0 };
    byRoute.set(i.route, q);
    if (i.stage === 'queued') {
      q.waiting++;
      const wait = Math.max(0, Math.floor((now - i.queuedAt) / 1000));
      q.oldestWaitSeconds = Math.max(q.oldestWaitSeconds ?? 0, wait);
    } else q.withAgents++;
  }
  return [...byRoute.values()].sort((a, b) => a.route.localeCompare(b.route));
}

/** Agents grouped by presence, in a fixed order of presence states. */
export function agentsByPresence(state: LiveState): { presence: PresenceState; agents: LiveAgent[] }[] {
  const order: PresenceState[] = ['Ready', 'Away', 'ExtendedAway', 'LoggedOut'];
  return order.map((presence) => ({
    presence,
    agents: [...state.agents.values()]
      .filter((a) => a.presence === presence)
      .sort((a, b) => a.username.localeCompare(b.username)),
  }));
}

/**
 * Service level: the share of interactions answered within `thresholdSeconds` among those answered or
 * abandoned since the page opened, in percent; null before any.
 */
export function serviceLevel(state: LiveState, thresholdSeconds = 20): number | null {
  const total = state.answeredMs.length + state.abandoned;
  if (!total) return null;
  const inTime = state.answeredMs.filter((ms) => ms <= thresholdSeconds * 1000).length;
  return Math.round((inTime / total) * 100);
}

import { capacityKeyOf } from './eligibility';
import { routingError } from './errors';
import { mediumOf } from './interaction';
import { iso } from './time';
import type {
  AgentRecord,
  Capacity,
  DomainEvent,
  InteractionType,
  Leg,
  Milestone,
  OfferEndReason,
  OfferSummary,
  Presence,
  WorkItem,
} from './types';

/** A change of an agent: its next state and the agent-activity events announcing it. */
export interface AgentChange {
  next: AgentRecord;
  events: DomainEvent[];
  /** Capacity was freed or the agent became Ready: routing should run for the account. */
  wake: boolean;
}

/** The agent's current workload: interactions held per capacity bucket (ringing ones included). */
export function workloadOf(work: Pick<WorkItem, 'type'>[]): Capacity {
  const w: Capacity = { calls: 0, semiLive: 0, nonLive: 0 };
  for (const item of work) w[capacityKeyOf(item.type)]++;
  return w;
}

/** Builds agent-activity events with consecutive sequence numbers and the common fields. */
class AgentEmitter {
  readonly events: DomainEvent[] = [];
  constructor(public agent: AgentRecord) {}

  emit(type: string, at: number, data: Record<string, unknown>): void {
    this.agent = { ...this.agent, activitySeq: this.agent.activitySeq + 1 };
    this.events.push({
      type,
      at,
      data: {
        agentId: this.agent.agentId,
        agentUsername: this.agent.username,
        accountId: this.agent.accountId,
        occurredAt: iso(at),
        sequence: this.agent.activitySeq,
        ...data,
      },
    });
  }

  presence(presence: Presence, reason: string | null, at: number): void {
    const a = this.agent;
    this.emit('agent-activity.presence-changed', at, {
      presence,
      eligibleForRouting: presence === 'Ready',
      reason,
      previous: a.everLoggedIn
        ? {
            presence: a.presence,
            eligibleForRouting: a.presence === 'Ready',
            reason: a.presenceReason,
            startedAt: iso(a.presenceSince),
            durationMs: Math.max(0, at - a.presenceSince),
          }
        : null,
    });
    this.agent = {
      ...this.agent,
      presence,
      presenceReason: reason,
      presenceSince: at,
      everLoggedIn: true,
      ...(presence === 'Ready' && a.presence !== 'Ready'
        ? { idleSince: Math.max(a.idleSince, at), missedOffers: 0 }
        : {}),
    };
  }

  workload(before: WorkItem[], after: WorkItem[], at: number): void {
    const a = this.agent;
    const prev = workloadOf(before);
    this.emit('agent-activity.workload-changed', at, {
      workload: workloadOf(after),
      capacity: a.capacity,
      previous:
        a.workloadSince === null
          ? null
          : { workload: prev, startedAt: iso(a.workloadSince), durationMs: Math.max(0, at - a.workloadSince) },
    });
    this.agent = { ...this.agent, workloadSince: at };
  }
}

/** Presence changes: setting the same presence is a no-op; LoggedOut needs no interaction in hand. */
export function changePresence(
  agent: AgentRecord,
  presence: Presence,
  reason: string | null,
  now: number,
): AgentChange {
  if (agent.presence === presence && (agent.presenceReason ?? null) === (reason ?? null) && agent.everLoggedIn) {
    return { next: agent, events: [], wake: false };
  }
  if (presence === 'LoggedOut' && agent.work.length > 0) {
    throw routingError(
      'AGENT.INVALID_STATE',
      `Agent ${agent.username} still has ${agent.work.length} interaction(s); finish them before logging out`,
    );
  }
  const em = new AgentEmitter(agent);
  em.presence(presence, reason, now);
  return { next: { ...em.agent, version: agent.version + 1 }, events: em.events, wake: presence === 'Ready' };
}

/** Why a reservation was refused: the agent is not Ready, or has no free capacity for the type. */
export function reservationRefusal(agent: AgentRecord, type: InteractionType): string | null {
  if (agent.presence !== 'Ready') return `presence ${agent.presence}`;
  const key = capacityKeyOf(type);
  const used = workloadOf(agent.work)[key];
  if (used >= agent.capacity[key]) return `no free ${key} capacity (${used}/${agent.capacity[key]})`;
  return null;
}

/** What the agent-activity segment events say about the interaction of a leg. */
export interface LegInteraction {
  interactionId: string;
  type: InteractionType;
  medium: string;
}

/**
 * Reserves capacity for an offer before it is written on the interaction, so no agent is ever offered
 * more than its capacity: the work item is added with Ringing already announced.
 */
export function reserve(
  agent: AgentRecord,
  interaction: LegInteraction,
  ids: { offerId: string; channelId: string },
  now: number,
  offer?: OfferSummary,
): AgentChange {
  const refusal = reservationRefusal(agent, interaction.type);
  if (refusal) throw routingError('AGENT.INVALID_STATE', `Agent ${agent.username} cannot take an offer: ${refusal}`);
  const item: WorkItem = {
    interactionId: interaction.interactionId,
    channelId: ids.channelId,
    offerId: ids.offerId,
    type: interaction.type,
    cursor: 1,
    reservedAt: now,
    ...(offer ? { offer } : {}),
  };
  const em = new AgentEmitter(agent);
  em.emit('agent-activity.segment-started', now, {
    segment: 'Ringing',
    startedAt: iso(now),
    interaction: segmentInteraction(interaction),
    channel: { guid: ids.channelId },
  });
  const work = [...agent.work, item];
  em.workload(agent.work, work, now);
  return {
    next: { ...em.agent, work, idleSince: Math.max(agent.idleSince, now), version: agent.version + 1 },
    events: em.events,
    wake: false,
  };
}

function segmentInteraction(i: LegInteraction) {
  return {
    guid: i.interactionId,
    medium: i.medium,
    mediumManager: 'CC',
    direction: 'Inbound',
    interactionType: i.type,
  };
}

/** The legs of one agent, found on the interactions it holds or is named in. */
export interface LegView {
  interaction: LegInteraction;
  leg: Leg;
}

/** Options of {@link reconcileAgentWork}. */
export interface ReconcileOptions {
  now: number;
  /** A work item without a leg younger than this is a reservation whose offer write is in flight: kept. */
  reserveGraceMs: number;
  /** Channels whose reservation is known to have failed: removed at once as Failed. */
  abandon?: ReadonlySet<string>;
  /** Consecutive timed-out offers after which a Ready agent is set Away (0 = never). */
  missedOffersAway: number;
  /**
   * The interactions this reconciliation is about (their legs are given): work items of other interactions
   * are left as they are, since their legs were not read. Absent: every work item is reconciled.
   */
  only?: ReadonlySet<string>;
}

function startOf(timeline: Milestone[], upto: number, segment: string): number | undefined {
  for (let i = upto - 1; i >= 0; i--) {
    const m = timeline[i];
    if (m && m.kind === 'start' && m.segment === segment) return m.at;
  }
  return undefined;
}

/**
 * Makes the agent's work list follow the interactions' legs (the interactions are the source of truth):
 * announces every leg milestone not yet announced as segment-started/-ended events with its exact time,
 * removes finished work (workload-changed), counts missed offers (Away after `missedOffersAway` in a
 * row), and drops reservations whose offer never reached the interaction. Idempotent: run it after every
 * interaction change and again after a crash.
 */
export function reconcileAgentWork(agent: AgentRecord, legs: LegView[], opts: ReconcileOptions): AgentChange {
  const em = new AgentEmitter(agent);
  const byChannel = new Map(legs.filter((l) => l.leg.agentId === agent.agentId).map((l) => [l.leg.channelId, l]));
  let work = [...agent.work];
  let wake = false;
  let changed = false;
  let missed = agent.missedOffers;
  let awayAt: number | null = null;

  // Legs of this agent not in the work list (e.g. the reservation was lost): adopt them unless finished and never announced.
  for (const view of byChannel.values()) {
    if (work.some((w) => w.channelId === view.leg.channelId)) continue;
    if (view.leg.done) continue;
    const item: WorkItem = {
      interactionId: view.interaction.interactionId,
      channelId: view.leg.channelId,
      offerId: view.leg.offerId,
      type: view.interaction.type,
      cursor: 0,
      reservedAt: view.leg.timeline[0]?.at ?? opts.now,
    };
    const before = work;
    work = [...work, item];
    em.workload(before, work, item.reservedAt);
    changed = true;
  }

  for (const item of [...work]) {
    if (opts.only && !opts.only.has(item.interactionId)) continue;
    const view = byChannel.get(item.channelId);
    if (!view) {
      const abandoned = opts.abandon?.has(item.channelId) ?? false;
      if (!abandoned && opts.now - item.reservedAt < opts.reserveGraceMs) continue;
      // The offer never reached the interaction: the ring that was announced ends as a system failure.
      if (item.cursor > 0) {
        em.emit('agent-activity.segment-ended', opts.now, {
          segment: 'Ringing',
          startedAt: iso(item.reservedAt),
          endedAt: iso(opts.now),
          durationMs: Math.max(0, opts.now - item.reservedAt),
          interaction: {
            guid: item.interactionId,
            medium: mediumOf(item.type),
            mediumManager: 'CC',
            direction: 'Inbound',
            interactionType: item.type,
          },
          channel: { guid: item.channelId },
          outcome: 'Failed',
        });
      }
      const before = work;
      work = work.filter((w) => w.channelId !== item.channelId);
      em.workload(before, work, opts.now);
      wake = true;
      changed = true;
      continue;
    }
    const { timeline } = view.leg;
    let cursor = item.cursor;
    for (; cursor < timeline.length; cursor++) {
      const m = timeline[cursor] as Milestone;
      const common = {
        segment: m.segment,
        interaction: segmentInteraction(view.interaction),
        channel: { guid: item.channelId },
      };
      if (m.kind === 'start') {
        em.emit('agent-activity.segment-started', m.at, { ...common, startedAt: iso(m.at) });
      } else {
        const started = startOf(timeline, cursor, m.segment) ?? m.at;
        em.emit('agent-activity.segment-ended', m.at, {
          ...common,
          startedAt: iso(started),
          endedAt: iso(m.at),
          durationMs: Math.max(0, m.at - started),
          status: 'Completed',
          outcome: m.segment === 'Ringing' ? (m.outcome ?? null) : null,
        });
        if (m.segment === 'Ringing')
          ({ missed, awayAt } = countMissed(m.reason, m.outcome ?? null, m.at, missed, awayAt, opts));
      }
    }
    if (cursor !== item.cursor) {
      changed = true;
      work = work.map((w) => (w.channelId === item.channelId ? { ...w, cursor } : w));
    }
    if (view.leg.done) {
      const before = work;
      work = work.filter((w) => w.channelId !== item.channelId);
      const endedAt = timeline.at(-1)?.at ?? opts.now;
      em.workload(before, work, endedAt);
      em.agent = { ...em.agent, idleSince: Math.max(em.agent.idleSince, endedAt) };
      wake = true;
      changed = true;
    }
  }

  if (missed !== agent.missedOffers) changed = true;
  em.agent = { ...em.agent, missedOffers: missed };
  if (awayAt !== null && em.agent.presence === 'Ready') {
    em.presence('Away', `Missed ${missed} offers in a row`, awayAt);
    em.agent = { ...em.agent, missedOffers: 0 };
    changed = true;
  }
  if (!changed) return { next: agent, events: [], wake: false };
  return { next: { ...em.agent, work, version: agent.version + 1 }, events: em.events, wake };
}

function countMissed(
  reason: OfferEndReason | undefined,
  outcome: string | null,
  at: number,
  missed: number,
  awayAt: number | null,
  opts: ReconcileOptions,
): { missed: number; awayAt: number | null } {
  if (outcome === 'Answered') return { missed: 0, awayAt };
  if (reason !== 'timed-out') return { missed, awayAt };
  const next = missed + 1;
  return { missed: next, awayAt: opts.missedOffersAway > 0 && next >= opts.missedOffersAway ? at : awayAt };
}

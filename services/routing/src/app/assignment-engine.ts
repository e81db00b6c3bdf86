import { randomUUID } from 'node:crypto';
import { reserve, workloadOf } from '../domain/agent';
import { type AgentView, decide, nextRoutingChangeAt, type RoutingRequest } from '../domain/eligibility';
import { endOffer, offerTo, queueTimeout, type Transition } from '../domain/interaction';
import { planRepairs } from '../domain/repairs';
import type { AgentRecord, Decision, InteractionRecord } from '../domain/types';
import { toCloudEvents } from '../events/publisher';
import { never } from '../store/account-lease.repository';
import type { AgentSync } from './agent-sync';
import type { RoutingContext, Waker } from './context';
import type { InteractionActions } from './interaction-actions';

/** Decisions kept on one interaction's trace (non-assignments are recorded only when they change). */
export const maxDecisions = 200;
/** How often an unchanged non-assignment of a waiting interaction is traced again. */
export const decisionRefreshMs = 30_000;

const requestLogCleanupMs = 10 * 60_000;

function viewOf(a: AgentRecord): AgentView {
  return {
    agentId: a.agentId,
    username: a.username,
    presence: a.presence,
    capacity: a.capacity,
    workload: workloadOf(a.work),
    skills: a.skills.map((s) => s.name),
    idleSince: a.idleSince,
  };
}

/** What routing needs of an interaction; agents who rejected it are held back for `rejectCooldownMs`. */
function requestOf(rec: InteractionRecord, rejectCooldownMs: number): RoutingRequest {
  const declined = rec.legs.flatMap((leg) =>
    leg.timeline
      .filter((m) => m.kind === 'end' && m.segment === 'Ringing' && m.reason === 'rejected')
      .map((m) => ({ agentId: leg.agentId, until: m.at + rejectCooldownMs })),
  );
  return {
    type: rec.type,
    queuedAt: rec.queuedAt ?? rec.createdAt,
    skills: rec.skills,
    personalQueue: rec.personalQueue,
    declined,
  };
}

const unchanged = (r: InteractionRecord): Transition => ({ next: r, events: [] });

/**
 * The assignment engine. Every instance runs the same loop: find accounts whose routing pass is due
 * (`wakeAt`), take the account's lease (one conditional update: one instance at a time), then run the
 * pass from the store: offer timeouts, queue timeouts, repairs, assignment, and the next deadline. No
 * state is kept between passes, so a new lease holder simply reads the store.
 */
export class AssignmentEngine implements Waker {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;
  private pokes = false;
  private readonly lastPass = new Map<string, number>();
  private readonly lastCleanup = new Map<string, number>();

  constructor(
    private readonly ctx: RoutingContext,
    private readonly sync: AgentSync,
    private readonly actions: InteractionActions,
  ) {}

  /** Stores a wake for the account and runs the local loop at once. */
  async wake(accountId: string): Promise<void> {
    await this.ctx.leases.wake(accountId);
    this.poke();
  }

  /** Runs a tick as soon as the current one ends. */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.pokes = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), 0);
  }

  /** Starts the loop. */
  start(): void {
    this.stopped = false;
    this.timer = setTimeout(() => void this.tick(), 0);
  }

  /** Stops the loop, waits for a pass in progress and gives up this instance's leases. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.ctx.leases.releaseAll(this.ctx.settings.instanceId).catch(() => undefined);
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.running) return;
    this.pokes = false;
    this.running = this.runDue()
      .catch((err) => this.ctx.logger.warn({ err: (err as Error).message }, 'routing tick failed'))
      .finally(() => {
        this.running = undefined;
      });
    await this.running;
    if (this.stopped) return;
    // Under load, passes of one account are spaced by at least the tick: each pass reads the account's
    // live interactions, and back-to-back passes would starve the store.
    this.timer = setTimeout(
      () => void this.tick(),
      this.pokes ? Math.min(50, this.ctx.settings.tickMs) : this.ctx.settings.tickMs,
    );
  }

  private async runDue(): Promise<void> {
    const { leases, settings } = this.ctx;
    for (const accountId of await leases.due(Date.now(), 50)) {
      if (this.stopped) return;
      if (Date.now() - (this.lastPass.get(accountId) ?? 0) < settings.tickMs) {
        this.pokes = true;
        continue;
      }
      const now = Date.now();
      const mark = now + settings.leaseMs;
      if (!(await leases.acquire(accountId, settings.instanceId, now, settings.leaseMs, mark))) continue;
      this.lastPass.set(accountId, now);
      try {
        const next = await this.pass(accountId);
        await leases.settle(accountId, settings.instanceId, mark, next);
      } catch (err) {
        this.ctx.logger.warn(
          { err: (err as Error).message, accountId },
          'routing pass failed; retried after the lease',
        );
      }
    }
  }

  /** One routing pass for an account; returns when the next one is due. */
  async pass(accountId: string): Promise<number> {
    const { interactions, settings } = this.ctx;
    const started = Date.now();
    const live = await interactions.live(accountId);
    let agents = await this.ctx.agents.all(accountId);
    const touched = new Set<string>();
    const apply = async (rec: InteractionRecord, change: (r: InteractionRecord) => Transition, what: string) => {
      touched.add(rec.interactionId);
      await this.actions
        .apply(accountId, rec.interactionId, change, { initial: rec })
        .catch((err) =>
          this.ctx.logger.warn({ err: (err as Error).message, interactionId: rec.interactionId }, `${what} failed`),
        );
    };

    // Timers: offers that rang out (Unexpected, requeued) and Queue applet timeouts (plan continues).
    for (const { rec } of live) {
      const now = Date.now();
      if (rec.state === 'offered' && rec.offer && rec.offer.expiresAt <= now) {
        await apply(
          rec,
          (r) =>
            r.state === 'offered' && r.offer && r.offer.expiresAt <= Date.now()
              ? endOffer(r, r.offer.agentId, r.offer.offerId, Date.now(), 'timed-out')
              : unchanged(r),
          'offer timeout',
        );
      } else if (rec.state === 'queued' && rec.queue?.timeoutAt != null && rec.queue.timeoutAt <= now) {
        await apply(
          rec,
          (r) =>
            r.state === 'queued' && r.queue?.timeoutAt != null && r.queue.timeoutAt <= Date.now()
              ? queueTimeout(r, Date.now())
              : unchanged(r),
          'queue timeout',
        );
      }
    }
    if (touched.size) agents = await this.ctx.agents.all(accountId);

    // Repairs: a leg whose agent's work list does not follow it (a crash between the two writes, or a
    // reservation whose offer never landed), once older than the grace period; settled ended
    // interactions leave the live collection.
    const repairs = planRepairs(
      live.filter((l) => !touched.has(l.rec.interactionId)).map((l) => ({ ...l.rec, updatedAt: l.updatedAt })),
      agents,
      touched,
      { now: Date.now(), syncGraceMs: settings.syncGraceMs, reserveGraceMs: settings.reserveGraceMs },
    );
    for (const [agentId, ids] of repairs.sync) await this.sync.sync(accountId, agentId, { extra: [...ids] });
    for (const id of repairs.archive) await interactions.archive(accountId, id).catch(() => false);
    if (repairs.sync.size) agents = await this.ctx.agents.all(accountId);
    if (Date.now() - (this.lastCleanup.get(accountId) ?? 0) >= requestLogCleanupMs) {
      this.lastCleanup.set(accountId, Date.now());
      await this.ctx.requests.expire(accountId, Date.now());
    }

    const queued = live
      .map((l) => l.rec)
      .filter((r) => r.state === 'queued' && !touched.has(r.interactionId))
      .sort((a, b) => (a.queuedAt ?? a.createdAt) - (b.queuedAt ?? b.createdAt) || a.createdAt - b.createdAt)
      .slice(0, settings.maxQueuedPerPass);
    const counts = new Map(live.map((l) => [l.rec.interactionId, l.decisionCount]));
    let nextAt = queued.length
      ? await this.assign(accountId, queued, agents, started + settings.leaseMs / 2, counts)
      : never;
    for (const { rec } of live) {
      if (rec.state === 'offered' && rec.offer && !touched.has(rec.interactionId))
        nextAt = Math.min(nextAt, rec.offer.expiresAt);
    }
    if (touched.size || repairs.waiting)
      nextAt = Math.min(nextAt, Date.now() + Math.max(settings.tickMs, repairs.waiting ? settings.syncGraceMs : 0));
    this.ctx.logger.debug(
      {
        accountId,
        ms: Date.now() - started,
        live: live.length,
        queued: queued.length,
        touched: touched.size,
        agents: agents.length,
      },
      'routing pass',
    );
    return nextAt;
  }

  /**
   * Assigns queued interactions in queue order to the best eligible agent (ARCHITECTURE §4). Each offer
   * first reserves the agent's capacity (conditional on the agent's version), then writes the offer on
   * the interaction (conditional on its version), so no agent is ever offered beyond its capacity and no
   * interaction is offered twice, even if two instances overlap. Returns the earliest time-driven change.
   */
  private async assign(
    accountId: string,
    queued: InteractionRecord[],
    agentList: AgentRecord[],
    leaseDeadline: number,
    decisionCounts: Map<string, number>,
  ): Promise<number> {
    const { agents, interactions, settings, logger } = this.ctx;
    const records = new Map(agentList.map((a) => [a.agentId, a]));
    let nextAt = never;
    const unassigned: { interactionId: string; decision: Decision; signature: string; count: number }[] = [];
    for (const rec of queued) {
      const now = Date.now();
      if (now > leaseDeadline) {
        if (!(await this.ctx.leases.acquire(accountId, settings.instanceId, now, settings.leaseMs))) return now;
        leaseDeadline = now + settings.leaseMs / 2;
      }
      if (rec.queue?.timeoutAt != null) nextAt = Math.min(nextAt, rec.queue.timeoutAt);
      const req = requestOf(rec, settings.rejectCooldownMs);
      const change = nextRoutingChangeAt(req, now);
      if (change !== null) nextAt = Math.min(nextAt, change);
      const decision = decide(req, [...records.values()].map(viewOf), now);
      const winner = decision.winner ? records.get(decision.winner) : undefined;
      if (!winner) {
        // A non-assignment is traced when its rule changes, and again at most every decisionRefreshMs:
        // agents' states change all the time, and tracing every pass would multiply the writes.
        const [lastRule, lastAt] = (rec.lastDecisionSig ?? '').split('@');
        if (lastRule !== decision.rule || now - Number(lastAt ?? 0) >= decisionRefreshMs) {
          unassigned.push({
            interactionId: rec.interactionId,
            decision,
            signature: `${decision.rule}@${now}`,
            count: decisionCounts.get(rec.interactionId) ?? 0,
          });
        }
        continue;
      }
      const ids = { offerId: randomUUID(), channelId: randomUUID() };
      const reservation = reserve(
        winner,
        { interactionId: rec.interactionId, type: rec.type, medium: rec.medium },
        ids,
        now,
        {
          route: rec.route,
          provider: rec.provider,
          offeredAt: now,
          expiresAt: now + settings.offerTimeoutMs,
          linkeddata: rec.linkeddata,
        },
      );
      const reserved = await agents.save(
        reservation.next,
        winner.version,
        toCloudEvents(accountId, winner.agentId, reservation.events),
      );
      if (!reserved) {
        // The agent changed meanwhile: read it again and try this interaction on the next pass.
        const fresh = await agents.get(accountId, winner.agentId);
        if (fresh) records.set(fresh.agentId, fresh);
        else records.delete(winner.agentId);
        nextAt = Math.min(nextAt, Date.now());
        continue;
      }
      records.set(winner.agentId, reservation.next);
      void this.ctx.publisher.soon(agents.outboxModel, winner.agentId, reserved);
      const offer = offerTo(
        rec,
        { agentId: winner.agentId, username: winner.username },
        decision,
        ids,
        now,
        settings.offerTimeoutMs,
      );
      const offered = await interactions.save(
        offer.next,
        rec.version,
        toCloudEvents(accountId, rec.interactionId, offer.events),
        decision,
      );
      if (!offered) {
        logger.info(
          { accountId, interactionId: rec.interactionId },
          'interaction changed during assignment; reservation withdrawn',
        );
        await this.sync.sync(accountId, winner.agentId, { abandon: new Set([ids.channelId]) });
        const fresh = await agents.get(accountId, winner.agentId);
        if (fresh) records.set(fresh.agentId, fresh);
        continue;
      }
      void this.ctx.publisher.soon(interactions.outboxModel, rec.interactionId, offered);
      nextAt = Math.min(nextAt, offer.next.offer?.expiresAt ?? never);
    }
    await interactions.recordDecisions(accountId, unassigned, maxDecisions);
    return nextAt;
  }
}

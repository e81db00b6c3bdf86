import { randomUUID } from 'node:crypto';
import { reserve, workloadOf } from '../domain/agent';
import { type AgentView, decide, nextRoutingChangeAt, type RoutingRequest } from '../domain/eligibility';
import { endOffer, offerTo, queueTimeout, type Transition } from '../domain/interaction';
import { planRepairs } from '../domain/repairs';
import type { AgentRecord, Decision, InteractionRecord } from '../domain/types';
import { toCloudEvents } from '../events/publisher';
import { never } from '../store/account-lease.repository';
import { Coalesced } from '../store/group-commit';
import type { AgentSync } from './agent-sync';
import type { RoutingContext, Waker } from './context';
import type { InteractionActions } from './interaction-actions';

/** Decisions kept on one interaction's trace (non-assignments are recorded only when they change). */
export const maxDecisions = 200;
/** How often an unchanged non-assignment of a waiting interaction is traced again. */
export const decisionRefreshMs = 30_000;

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

/** Longest delay a Node timer takes; a later due time is re-read from the store when this one fires. */
const maxTimerMs = 2 ** 31 - 1;
/** Delay before retrying a wake whose lease read or write failed. */
const retryMs = 1000;

/**
 * The assignment engine, woken by work instead of polling. A change that gives routing work (an Invoke, an
 * agent becoming available, a requeue) stores a wake for the account and runs its pass here at once; a pass
 * ends by storing and arming a timer for its next known deadline (offer timeout, queue timeout, skill
 * expiry, repair grace). The pass runs under the account's lease (one conditional update: one instance at a
 * time), kept only for the pass gap after it, so whichever instance next has work for the account takes it
 * within that gap; a wake that arrives during another instance's pass makes that instance run again (its
 * settle no longer matches), and the waking instance arms a timer for the lease's end (covering a holder
 * that dies). A slow sweep (`sweepMs`) re-reads every pending wake, for deadlines whose instance died.
 * Passes of different accounts run concurrently (up to `passConcurrency`); one account's never overlap here.
 */
export class AssignmentEngine implements Waker {
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly ready = new Set<string>();
  private readonly lastPass = new Map<string, number>();
  private readonly wakes = new Map<string, Coalesced>();
  /** Passes in progress, by account: at most one per account, several accounts at once. */
  private readonly running = new Map<string, Promise<void>>();
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  private stopped = true;

  constructor(
    private readonly ctx: RoutingContext,
    private readonly sync: AgentSync,
    private readonly actions: InteractionActions,
  ) {}

  /** Stores a wake for the account (any instance may run it) and runs the pass here as soon as allowed. */
  async wake(accountId: string): Promise<void> {
    // Concurrent wakes of one account (a burst of Invokes) share one write; each still returns only
    // after a wake stored later than its own write.
    let w = this.wakes.get(accountId);
    if (!w) {
      w = new Coalesced(() => this.ctx.leases.wake(accountId));
      this.wakes.set(accountId, w);
    }
    const done = w.run();
    try {
      await done;
    } finally {
      if (w.idle && this.wakes.get(accountId) === w) this.wakes.delete(accountId);
    }
    this.schedule(accountId, Date.now());
  }

  /**
   * Arms the account's pass for `at` unless one is armed earlier. Passes of one account are at least
   * `passGapMs` apart: under load a burst of wakes is served by one pass, which reads all of the account.
   */
  schedule(accountId: string, at: number): void {
    if (this.stopped || at >= never) return;
    const due = Math.max(at, (this.lastPass.get(accountId) ?? 0) + this.ctx.settings.passGapMs);
    const armed = this.timers.get(accountId);
    if (armed && armed.at <= due) return;
    if (armed) clearTimeout(armed.timer);
    const timer = setTimeout(
      () => {
        this.timers.delete(accountId);
        this.ready.add(accountId);
        this.kick();
      },
      Math.min(Math.max(0, due - Date.now()), maxTimerMs),
    );
    this.timers.set(accountId, { at: due, timer });
  }

  /** Starts the engine: a sweep now (deadlines left by a previous instance), then every `sweepMs`. */
  start(): void {
    this.stopped = false;
    const sweep = () => {
      if (this.stopped) return;
      this.sweeping = this.sweep()
        .catch((err) => this.ctx.logger.warn({ err: (err as Error).message }, 'routing sweep failed'))
        .finally(() => {
          if (!this.stopped) this.sweepTimer = setTimeout(sweep, this.ctx.settings.sweepMs);
        });
    };
    sweep();
  }

  /** Stops the engine, waits for a pass in progress and gives up this instance's leases. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.sweepTimer);
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.ready.clear();
    await this.sweeping;
    while (this.running.size) await Promise.all(this.running.values());
    await this.ctx.leases.releaseAll(this.ctx.settings.instanceId).catch(() => undefined);
  }

  /** Arms a timer for every account with a stored wake: the safety net for deadlines nobody here armed. */
  private async sweep(): Promise<void> {
    for (const { accountId, wakeAt } of await this.ctx.leases.pending(1000)) this.schedule(accountId, wakeAt);
  }

  /**
   * Starts the pass of every ready account that has none in progress, up to `passConcurrency` at once:
   * accounts never wait for each other's passes (a slow pass of a busy account used to delay every
   * other account's offers), and one account still has at most one pass here at a time (an account
   * woken during its pass stays ready and runs again when that pass ends).
   */
  private kick(): void {
    if (this.stopped) return;
    for (const accountId of [...this.ready]) {
      if (this.running.size >= this.ctx.settings.passConcurrency) return;
      if (this.running.has(accountId)) continue;
      this.ready.delete(accountId);
      const run = this.runAccount(accountId)
        .catch((err) => {
          // A store error on the lease document: try again shortly rather than wait for the sweep.
          this.ctx.logger.warn({ err: (err as Error).message, accountId }, 'routing wake failed; retrying');
          this.schedule(accountId, Date.now() + retryMs);
        })
        .finally(() => {
          this.running.delete(accountId);
          this.kick();
        });
      this.running.set(accountId, run);
    }
  }

  private async runAccount(accountId: string): Promise<void> {
    const { leases, settings } = this.ctx;
    const now = Date.now();
    const mark = now + settings.leaseMs;
    if (!(await leases.acquire(accountId, settings.instanceId, now, settings.leaseMs, mark))) {
      // Not due yet, or another instance is passing it: arm for the stored wake, or for the end of that
      // lease (the holder re-runs if woken meanwhile; this timer covers the holder dying mid-pass).
      const state = await leases.state(accountId);
      if (!state) return;
      const heldElsewhere = state.owner && state.owner !== settings.instanceId && state.leaseUntil > now;
      this.schedule(accountId, heldElsewhere ? Math.max(state.wakeAt, state.leaseUntil + 1) : state.wakeAt);
      return;
    }
    this.lastPass.set(accountId, now);
    let next: number;
    try {
      next = await this.pass(accountId);
    } catch (err) {
      // The stored wake stays at the lease end: this or another instance retries then.
      this.ctx.logger.warn({ err: (err as Error).message, accountId }, 'routing pass failed; retried after the lease');
      this.schedule(accountId, mark);
      return;
    }
    const settled = await leases.settle(accountId, settings.instanceId, mark, next, Date.now() + settings.passGapMs);
    // Not settled: woken during the pass (or the lease was lost): run again (spaced by the pass gap).
    this.schedule(accountId, settled ? next : Date.now());
  }

  /** One routing pass for an account; returns when the next one is due. */
  async pass(accountId: string): Promise<number> {
    const { interactions, settings } = this.ctx;
    const started = Date.now();
    // The lease is renewed between the pass's steps once half of it has gone (reads can be slow under load);
    // if another instance took it meanwhile, this pass stops writing and leaves the account to it.
    let leaseDeadline = started + settings.leaseMs / 2;
    const keepLease = async (): Promise<boolean> => {
      const now = Date.now();
      if (now <= leaseDeadline) return true;
      if (!(await this.ctx.leases.acquire(accountId, settings.instanceId, now, settings.leaseMs))) return false;
      leaseDeadline = now + settings.leaseMs / 2;
      return true;
    };
    const live = await interactions.live(accountId);
    let agents = await this.ctx.agents.all(accountId);
    if (!(await keepLease())) return Date.now();
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
        if (!(await keepLease())) return Date.now();
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
    if (!(await keepLease())) return Date.now();

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

    const queued = live
      .map((l) => l.rec)
      .filter((r) => r.state === 'queued' && !touched.has(r.interactionId))
      .sort((a, b) => (a.queuedAt ?? a.createdAt) - (b.queuedAt ?? b.createdAt) || a.createdAt - b.createdAt)
      .slice(0, settings.maxQueuedPerPass);
    const counts = new Map(live.map((l) => [l.rec.interactionId, l.decisionCount]));
    let nextAt = queued.length
      ? (await keepLease())
        ? await this.assign(accountId, queued, agents, leaseDeadline, counts)
        : Date.now()
      : never;
    for (const { rec } of live) {
      if (rec.state === 'offered' && rec.offer && !touched.has(rec.interactionId))
        nextAt = Math.min(nextAt, rec.offer.expiresAt);
    }
    if (touched.size || repairs.waiting)
      nextAt = Math.min(nextAt, Date.now() + Math.max(settings.passGapMs, repairs.waiting ? settings.syncGraceMs : 0));
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
      void this.ctx.publisher.soon(agents.outboxModel, winner.agentId, { staged: reserved });
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
          { accountId, interactionId: rec.interactionId, agentId: winner.agentId, offerId: ids.offerId },
          'interaction changed during assignment; reservation withdrawn',
        );
        await this.sync.sync(accountId, winner.agentId, { abandon: new Set([ids.channelId]) });
        const fresh = await agents.get(accountId, winner.agentId);
        if (fresh) records.set(fresh.agentId, fresh);
        continue;
      }
      void this.ctx.publisher.soon(interactions.outboxModel, rec.interactionId, { staged: offered });
      nextAt = Math.min(nextAt, offer.next.offer?.expiresAt ?? never);
    }
    await interactions.recordDecisions(accountId, unassigned, maxDecisions);
    return nextAt;
  }
}

import { randomUUID } from 'node:crypto';
import { reserve, workloadOf } from '../domain/agent';
import {
  type AgentView,
  decide,
  nextRoutingChangeAt,
  type RoutingRequest,
  ruleWithoutRoom,
} from '../domain/eligibility';
import { endOffer, offerTo, queueTimeout, type Transition } from '../domain/interaction';
import { planRepairs } from '../domain/repairs';
import type { AgentRecord, Decision, DomainEvent, InteractionRecord } from '../domain/types';
import { groupedPublication, type Staged, toCloudEvents } from '../events/publisher';
import { never } from '../store/account-lease.repository';
import type { AccountState, LiveInteraction } from '../store/account-memory';
import { Coalesced, type GroupCommit } from '../store/group-commit';
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

/** An offer a pass decided, written once its agent's reservation is. */
interface PlannedOffer {
  rec: InteractionRecord;
  decision: Decision;
  ids: { offerId: string; channelId: string };
  now: number;
}

const unchanged = (r: InteractionRecord): Transition => ({ next: r, events: [] });

/** Longest delay a Node timer takes; a later due time is re-read from the store when this one fires. */
const maxTimerMs = 2 ** 31 - 1;
/** Delay before retrying a wake whose lease read or write failed. */
const retryMs = 1000;
/** How long after a pass finds an ended interaction ready it is moved to the archive. */
const archiveDelayMs = 1000;
/** Writes of one pass in flight at once (reservations, then offers). */
const writeWidth = 16;

/** Runs `task` over `items`, at most `width` at a time; resolves when all are done. */
async function inParallel<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await task(items[next++] as T);
    }),
  );
}

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
  /**
   * Accounts this instance is passing, from its pass start until its next pass start (or a pass that settled or
   * failed): `until`, half a lease after the start, bounds the time the lease is surely still this instance's;
   * `due` says the stored wake is due (a wake stored during that time, or the settle that missed because of one).
   * Until the next pass start, only this instance can take that wake, and the next pass reads whatever was written
   * before it: a further wake meanwhile needs no store write (under load, most Invokes come during a pass).
   */
  private readonly passing = new Map<string, { until: number; due: boolean }>();
  /**
   * Accounts for which a wake was not stored (see {@link passing}) and no pass start has been taken here since: if
   * the next start is not taken (another instance took the lease after all, e.g. with clocks far apart), the wake is
   * stored then, so the holder's pass runs again and reads what those wakes were for.
   */
  private readonly owed = new Set<string>();
  /** Passes in progress, by account: at most one per account, several accounts at once. */
  private readonly running = new Map<string, Promise<void>>();
  /** Ended interactions being moved to the archive (`account\u001finteraction`), and the moves waiting. */
  private readonly archiving = new Set<string>();
  private readonly archiveQueue: { accountId: string; interactionId: string; key: string; notBefore: number }[] = [];
  private readonly archivers = new Set<Promise<void>>();
  /**
   * The events of a pass's reservations and offers, written side by side, go out together: one produce call
   * and one bulk outbox clear per group (the group commit of the publish, as Invoke's), not one each.
   */
  private readonly reservationsOut: GroupCommit<{ id: string; staged: Staged }, null>;
  private readonly offersOut: GroupCommit<{ id: string; staged: Staged }, null>;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  private stopped = true;

  constructor(
    private readonly ctx: RoutingContext,
    private readonly sync: AgentSync,
    private readonly actions: InteractionActions,
  ) {
    this.reservationsOut = groupedPublication(
      () => ctx.publisher,
      () => ctx.agents.outboxModel,
    );
    this.offersOut = groupedPublication(
      () => ctx.publisher,
      () => ctx.interactions.outboxModel,
    );
  }

  /** Stores a wake for the account (any instance may run it) and runs the pass here as soon as allowed. */
  async wake(accountId: string): Promise<void> {
    const guard = this.passing.get(accountId);
    if (guard?.due && Date.now() < guard.until && !this.stopped) {
      this.owed.add(accountId);
      this.schedule(accountId, Date.now());
      return;
    }
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
    // Stored after this instance's pass start (the write began after this call) and before its next one.
    if (guard && this.passing.get(accountId) === guard && Date.now() < guard.until) guard.due = true;
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
    this.passing.clear();
    await this.sweeping;
    while (this.running.size) await Promise.all(this.running.values());
    // Moves not started yet are left to a later pass (the interactions stay ended in the live collection).
    this.archiveQueue.length = 0;
    while (this.archivers.size) await Promise.all(this.archivers);
    this.archiving.clear();
    // Wakes not stored because this instance was passing: stored now (another instance may hold the lease by now).
    await Promise.all([...this.owed].map((accountId) => this.ctx.leases.wake(accountId).catch(() => undefined)));
    this.owed.clear();
    await this.ctx.leases.releaseAll(this.ctx.settings.instanceId).catch(() => undefined);
    this.ctx.memory.clear();
  }

  /** Arms a timer for every account with a stored wake: the safety net for deadlines nobody here armed. */
  private async sweep(): Promise<void> {
    // Accounts no pass has used for a while leave memory (loaded again by their next pass).
    this.ctx.memory.dropIdle(Date.now() - this.ctx.settings.memoryIdleMs);
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
    this.passing.delete(accountId); // this start may take any wake stored so far
    const owed = this.owed.has(accountId);
    const taken = await leases.begin(accountId, settings.instanceId, now, settings.leaseMs, mark);
    if (taken) this.owed.delete(accountId);
    else if (owed) {
      await leases.wake(accountId);
      this.owed.delete(accountId);
    }
    if (!taken) {
      // Not due yet, or another instance is passing it: arm for the stored wake, or for the end of that
      // lease (the holder re-runs if woken meanwhile; this timer covers the holder dying mid-pass).
      const state = await leases.state(accountId);
      if (!state) return;
      const heldElsewhere = state.owner && state.owner !== settings.instanceId && state.leaseUntil > now;
      // Another instance decides for the account now: what this one kept of it goes stale.
      if (state.owner !== settings.instanceId) this.ctx.memory.drop(accountId);
      this.schedule(accountId, heldElsewhere ? Math.max(state.wakeAt, state.leaseUntil + 1) : state.wakeAt);
      return;
    }
    // Another instance ran a pass since this one's last (its routing writes leave no change flag), or this
    // one never held the account: read the account whole.
    const takeover = taken.previousOwner !== settings.instanceId;
    if (takeover) this.ctx.memory.drop(accountId);
    this.lastPass.set(accountId, now);
    // The lease runs to `mark`; a pass renews it only after half of it, so until then it is surely this one's.
    const guard = { until: now + settings.leaseMs / 2, due: false };
    this.passing.set(accountId, guard);
    const unguard = () => {
      if (this.passing.get(accountId) === guard) this.passing.delete(accountId);
    };
    let next: number;
    try {
      next = await this.pass(accountId, { takeover: takeover && taken.previousOwner !== null });
    } catch (err) {
      unguard();
      // The stored wake stays at the lease end: this or another instance retries then. What this instance
      // kept of the account is read again (a pass that failed halfway may have left it behind the store).
      this.ctx.memory.drop(accountId);
      this.ctx.logger.warn({ err: (err as Error).message, accountId }, 'routing pass failed; retried after the lease');
      this.schedule(accountId, mark);
      return;
    }
    const settling = Date.now();
    // A settle that matches shortens the lease to the pass gap: while it is in flight, wakes are stored again and
    // none counts as due (its answer may come after theirs).
    const { until } = guard;
    guard.until = 0;
    const settled = await leases.settle(accountId, settings.instanceId, mark, next, settling + settings.passGapMs);
    // Not settled: woken during the pass (or the lease was lost): run again (spaced by the pass gap). Sent while
    // the lease was surely this instance's, the settle missed because of a wake and left the lease as it was: the
    // wake is due, for this one only.
    if (!settled && settling < until && this.passing.get(accountId) === guard) {
      guard.until = until;
      guard.due = true;
    } else unguard();
    this.schedule(accountId, settled ? next : Date.now());
  }

  /**
   * Moves these ended interactions to the archive, up to `writeWidth` at a time, beside the passes. Each move
   * is conditional (the live document is deleted only at the version copied), so it is safe whoever holds
   * the lease by then; one already moving is not queued twice.
   */
  private archiveLater(accountId: string, ids: string[]): void {
    for (const interactionId of ids) {
      const key = `${accountId}\u001f${interactionId}`;
      if (this.archiving.has(key)) continue;
      this.archiving.add(key);
      // The ending's events are usually still being published: a move now would find them pending, refuse, and
      // cost a read for nothing (half the moves did, at 100 releases/s).
      this.archiveQueue.push({ accountId, interactionId, key, notBefore: Date.now() + archiveDelayMs });
    }
    while (this.archivers.size < writeWidth && this.archiveQueue.length) {
      const drain: Promise<void> = (async () => {
        for (let next = this.archiveQueue.shift(); next; next = this.archiveQueue.shift()) {
          const wait = next.notBefore - Date.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          if (this.stopped) {
            this.archiving.delete(next.key);
            continue;
          }
          await this.ctx.interactions
            .archive(next.accountId, next.interactionId)
            .catch((err) =>
              this.ctx.logger.warn(
                { err: (err as Error).message, interactionId: next?.interactionId },
                'archive failed',
              ),
            );
          this.archiving.delete(next.key);
        }
      })().finally(() => this.archivers.delete(drain));
      this.archivers.add(drain);
    }
  }

  /**
   * The account as this instance keeps it while it holds the lease (ARCHITECTURE §7): read whole when
   * missing (first pass, lease taken over, memory dropped) or when its safety reload is due — a lease
   * length after taking over from another instance (whose last writes may still land), else every
   * `reloadMs`; otherwise only what others changed since the last pass (the change flag), merged by
   * version. Returns the change flags read (id → version), which the pass clears at its end.
   */
  private async accountState(
    accountId: string,
    takeover: boolean,
  ): Promise<{ state: AccountState; flags: [Map<string, number>, Map<string, number>] }> {
    const { memory, interactions, agents, settings } = this.ctx;
    const now = Date.now();
    let state = memory.get(accountId);
    let flags: [Map<string, number>, Map<string, number>];
    if (!state || state.reloadAt <= now) {
      const [live, all] = await Promise.all([interactions.live(accountId), agents.all(accountId)]);
      state = memory.load(
        accountId,
        live.items,
        all.items,
        now,
        now + (takeover ? settings.leaseMs : settings.reloadMs),
      );
      flags = [live.dirty, all.dirty];
    } else {
      const [changedInteractions, changedAgents] = await Promise.all([
        interactions.changed(accountId),
        agents.changed(accountId),
      ]);
      for (const item of changedInteractions.items) memory.noteInteraction(accountId, item);
      for (const agent of changedAgents.items) memory.noteAgent(accountId, agent);
      flags = [changedInteractions.dirty, changedAgents.dirty];
    }
    state.usedAt = now;
    return { state, flags };
  }

  /**
   * Clears the change flags a pass read, at the versions it merged, except where memory moved on: the
   * pass's own routing writes already cleared theirs (`decided`: unassigned interactions whose trace
   * signature was written with the flag cleared), and a later write by anyone keeps its flag for the next pass.
   */
  private async clearFlags(
    accountId: string,
    flags: [Map<string, number>, Map<string, number>],
    decided: Set<string>,
  ): Promise<void> {
    const state = this.ctx.memory.get(accountId);
    if (!state) return;
    const interactions = new Map(
      [...flags[0]].filter(([id, v]) => {
        const kept = state.interactions.get(id)?.rec;
        // An ended interaction is about to leave for the archive: clearing its flag would be a wasted update.
        return !decided.has(id) && kept?.version === v && kept.state !== 'ended';
      }),
    );
    const agents = new Map([...flags[1]].filter(([id, v]) => state.agents.get(id)?.version === v));
    await Promise.all([this.ctx.interactions.seen(accountId, interactions), this.ctx.agents.seen(accountId, agents)]);
  }

  /** One routing pass for an account, from memory; returns when the next one is due. */
  async pass(accountId: string, opts: { takeover?: boolean } = {}): Promise<number> {
    const { settings, memory } = this.ctx;
    const started = Date.now();
    // The lease is renewed between the pass's steps once half of it has gone (reads can be slow under load);
    // if another instance took it meanwhile, this pass stops writing and leaves the account to it, and if
    // another ran a pass in between (its lease ran out too), what is kept here is read again next time.
    let leaseDeadline = started + settings.leaseMs / 2;
    // Writes running side by side share one renewal.
    let renewing: Promise<boolean> | undefined;
    const keepLease = (): Promise<boolean> => {
      if (Date.now() <= leaseDeadline) return Promise.resolve(true);
      renewing ??= (async () => {
        const now = Date.now();
        const renewed = await this.ctx.leases.renew(accountId, settings.instanceId, now, settings.leaseMs);
        if (renewed?.previousOwner !== settings.instanceId) {
          memory.drop(accountId);
          return false;
        }
        leaseDeadline = now + settings.leaseMs / 2;
        return true;
      })().finally(() => {
        renewing = undefined;
      });
      return renewing;
    };
    const { state, flags } = await this.accountState(accountId, opts.takeover ?? false);
    const decided = new Set<string>();
    const agentsNow = () => [...(memory.get(accountId) ?? state).agents.values()];
    const live = [...state.interactions.values()];
    let agents = agentsNow();
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

    // One walk over the account's live interactions sorts out what the pass acts on: timers come due, the
    // queue, what repairs must compare, the next offer expiry. Every later step works on these lists, so a
    // pass costs one cheap look per live interaction, not an await or a copy each (5,000 queued made the
    // per-interaction closures a tenth of the process's time).
    const now = Date.now();
    const due: LiveInteraction[] = [];
    const waiting: LiveInteraction[] = [];
    const withLegs: LiveInteraction[] = [];
    let nextExpiry = never;
    for (const l of live) {
      const { rec } = l;
      if (rec.state === 'offered' && rec.offer && rec.offer.expiresAt <= now) due.push(l);
      else if (rec.state === 'queued' && rec.queue?.timeoutAt != null && rec.queue.timeoutAt <= now) due.push(l);
      else {
        if (rec.state === 'queued') waiting.push(l);
        if (rec.state === 'offered' && rec.offer) nextExpiry = Math.min(nextExpiry, rec.offer.expiresAt);
        // Without legs, only an ended interaction has anything for repairs (it is archived).
        if (rec.legs.length || rec.state === 'ended') withLegs.push(l);
      }
    }

    // Timers: offers that rang out (Unexpected, requeued) and Queue applet timeouts (plan continues), side by
    // side (a burst of offers ringing out at once took one write after another: 540 of them, 37 s).
    let leaseLost = false;
    await inParallel(due, writeWidth, async ({ rec }) => {
      if (leaseLost) return;
      if (rec.state === 'offered') {
        if (!(await keepLease())) {
          leaseLost = true;
          return;
        }
        await apply(
          rec,
          (r) =>
            r.state === 'offered' && r.offer && r.offer.expiresAt <= Date.now()
              ? endOffer(r, r.offer.agentId, r.offer.offerId, Date.now(), 'timed-out')
              : unchanged(r),
          'offer timeout',
        );
      } else {
        await apply(
          rec,
          (r) =>
            r.state === 'queued' && r.queue?.timeoutAt != null && r.queue.timeoutAt <= Date.now()
              ? queueTimeout(r, Date.now())
              : unchanged(r),
          'queue timeout',
        );
      }
    });
    if (leaseLost) return Date.now();
    if (touched.size) agents = agentsNow();
    if (!(await keepLease())) return Date.now();

    // Repairs: a leg whose agent's work list does not follow it (a crash between the two writes, or a
    // reservation whose offer never landed), once older than the grace period; settled ended
    // interactions leave the live collection.
    const repairs = planRepairs(
      withLegs.map((l) => ({ ...l.rec, updatedAt: l.updatedAt })),
      agents,
      touched,
      { now: Date.now(), syncGraceMs: settings.syncGraceMs, reserveGraceMs: settings.reserveGraceMs },
    );
    await inParallel([...repairs.sync], writeWidth, async ([agentId, ids]) => {
      await this.sync.sync(accountId, agentId, { extra: [...ids] });
    });
    // Ended interactions leave the live collection beside the pass, not in its way (at 100 releases/s their
    // four writes each, one after another, held every pass for seconds).
    this.archiveLater(accountId, repairs.archive);
    if (repairs.sync.size) agents = agentsNow();

    const queued = waiting
      .sort(
        ({ rec: a }, { rec: b }) =>
          (a.queuedAt ?? a.createdAt) - (b.queuedAt ?? b.createdAt) || a.createdAt - b.createdAt,
      )
      .slice(0, settings.maxQueuedPerPass);
    let nextAt = queued.length
      ? (await keepLease())
        ? await this.assign(accountId, queued, agents, keepLease, decided)
        : Date.now()
      : never;
    nextAt = Math.min(nextAt, nextExpiry);
    if (touched.size || repairs.waiting)
      nextAt = Math.min(nextAt, Date.now() + Math.max(settings.passGapMs, repairs.waiting ? settings.syncGraceMs : 0));
    await this.clearFlags(accountId, flags, decided);
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
   * interaction is offered twice, even if two instances overlap. The pass decides every queued interaction
   * in memory first, then writes: one reservation write per agent (all its offers of the pass), the agents
   * side by side, then the offers side by side; a pass's writes cost a few round trips deep, not two per
   * offer in a row. Returns the earliest time-driven change.
   */
  private async assign(
    accountId: string,
    queued: LiveInteraction[],
    agentList: AgentRecord[],
    keepLease: () => Promise<boolean>,
    decided: Set<string>,
  ): Promise<number> {
    const { agents, interactions, settings, logger } = this.ctx;
    const records = new Map(agentList.map((a) => [a.agentId, a]));
    // The agents as routing sees them, made once per pass; a reservation replaces its agent's view.
    const views = new Map(agentList.map((a) => [a.agentId, viewOf(a)]));
    let viewList = [...views.values()];
    let nextAt = never;
    const unassigned: {
      interactionId: string;
      version: number;
      decision: Decision;
      signature: string;
      count: number;
    }[] = [];
    /** Per winning agent: its record before the pass's reservations, their events, and the offers to write. */
    const reservations = new Map<string, { before: AgentRecord; events: DomainEvent[]; offers: PlannedOffer[] }>();
    for (const { rec, decisionCount } of queued) {
      if (!(await keepLease())) return Date.now();
      const now = Date.now();
      if (rec.queue?.timeoutAt != null) {
        nextAt = Math.min(nextAt, rec.queue.timeoutAt);
        // Its queue timeout came due since the pass began: the next pass applies it (never offer past it).
        if (rec.queue.timeoutAt <= now) continue;
      }
      const req = requestOf(rec, settings.rejectCooldownMs);
      const change = nextRoutingChangeAt(req, now);
      if (change !== null) nextAt = Math.min(nextAt, change);
      // A non-assignment is traced when its rule changes, and again at most every decisionRefreshMs:
      // agents' states change all the time, and tracing every pass would multiply the writes.
      const [lastRule, lastAt] = (rec.lastDecisionSig ?? '').split('@');
      const traceDue = now - Number(lastAt ?? 0) >= decisionRefreshMs;
      // Nobody Ready with room for this type and the rule unchanged: nothing to write, and no full decision (a
      // trace line per agent) made for each of thousands of queued interactions on every pass.
      if (!traceDue && ruleWithoutRoom(req, viewList, now) === lastRule) continue;
      const decision = decide(req, viewList, now);
      const winner = decision.winner ? records.get(decision.winner) : undefined;
      if (!winner) {
        if (lastRule !== decision.rule || traceDue) {
          unassigned.push({
            interactionId: rec.interactionId,
            version: rec.version,
            decision,
            signature: `${decision.rule}@${now}`,
            count: decisionCount,
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
      let r = reservations.get(winner.agentId);
      if (!r) {
        r = { before: winner, events: [], offers: [] };
        reservations.set(winner.agentId, r);
      }
      r.events.push(...reservation.events);
      r.offers.push({ rec, decision, ids, now });
      // Later decisions of the pass see this agent with the capacity it has left.
      records.set(winner.agentId, reservation.next);
      views.set(winner.agentId, viewOf(reservation.next));
      viewList = [...views.values()];
    }
    if (reservations.size && !(await keepLease())) return Date.now();

    // Reservations: one conditional write per agent carrying all its offers of the pass, agents side by side.
    const offers: { agentId: string; offer: PlannedOffer }[] = [];
    await inParallel([...reservations], writeWidth, async ([agentId, r]) => {
      const next = records.get(agentId) as AgentRecord;
      const reserved = await agents.save(next, r.before.version, toCloudEvents(accountId, agentId, r.events), {
        byOwner: true,
      });
      if (!reserved) {
        // The agent changed meanwhile: read it again (into memory too); its interactions wait for the next pass.
        const fresh = await agents.get(accountId, agentId);
        if (!fresh) this.ctx.memory.forgetAgent(accountId, agentId);
        nextAt = Math.min(nextAt, Date.now());
        return;
      }
      void this.reservationsOut.add([{ id: agentId, staged: reserved }]);
      for (const offer of r.offers) offers.push({ agentId, offer });
    });

    // Offers, side by side: an offer that loses (the interaction changed) withdraws its reservation.
    const withdrawn = new Map<string, { channels: Set<string>; interactions: string[] }>();
    await inParallel(offers, writeWidth, async ({ agentId, offer: { rec, decision, ids, now } }) => {
      const winner = records.get(agentId) as AgentRecord;
      const offer = offerTo(rec, { agentId, username: winner.username }, decision, ids, now, settings.offerTimeoutMs);
      const offered = await interactions.save(
        offer.next,
        rec.version,
        toCloudEvents(accountId, rec.interactionId, offer.events),
        decision,
        { byOwner: true },
      );
      if (!offered) {
        logger.info(
          { accountId, interactionId: rec.interactionId, agentId, offerId: ids.offerId },
          'interaction changed during assignment; reservation withdrawn',
        );
        // Memory was behind the store for this interaction: read it again (never act on it stale twice).
        if (!(await interactions.get(accountId, rec.interactionId)))
          this.ctx.memory.forgetInteraction(accountId, rec.interactionId);
        const lost = withdrawn.get(agentId) ?? { channels: new Set<string>(), interactions: [] };
        lost.channels.add(ids.channelId);
        lost.interactions.push(rec.interactionId);
        withdrawn.set(agentId, lost);
        return;
      }
      void this.offersOut.add([{ id: rec.interactionId, staged: offered }]);
      nextAt = Math.min(nextAt, offer.next.offer?.expiresAt ?? never);
    });
    // One withdrawal per agent for every offer of it that lost.
    await inParallel([...withdrawn], writeWidth, async ([agentId, lost]) => {
      await this.sync.sync(accountId, agentId, { abandon: lost.channels, only: lost.interactions });
    });
    for (const id of await interactions.recordDecisions(accountId, unassigned, maxDecisions)) decided.add(id);
    return nextAt;
  }
}

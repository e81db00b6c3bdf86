import { type LegView, reconcileAgentWork } from '../domain/agent';
import type { AgentRecord, InteractionRecord } from '../domain/types';
import { toCloudEvents } from '../events/publisher';
import type { RoutingContext } from './context';

/** What one reconciliation of an agent is asked to cover (see {@link AgentSync.sync}). */
export interface SyncRequest {
  extra?: string[];
  only?: string[];
  abandon?: Set<string>;
  traceparent?: string;
  known?: InteractionRecord;
  agent?: AgentRecord;
}

/** Requests for one agent that arrived while its reconciliation was running: served together by the next one. */
interface Queued {
  /** null: every work item (an unscoped request is among them); else the interactions asked for. */
  only: Set<string> | null;
  extra: Set<string>;
  abandon: Set<string>;
  known: Map<string, InteractionRecord>;
  traceparent?: string;
  done: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Brings agents' work lists in step with the interactions (the source of truth): every interaction
 * change names its agents (`syncAgents`); after the interaction write, each of them is reconciled, and
 * the engine repeats it for changes a crash interrupted.
 *
 * One agent is reconciled by one call at a time in this instance: requests arriving meanwhile (an agent
 * with ten interactions, released together) wait and are served by one reconciliation after it, which
 * starts from the agent as the previous one wrote it. Concurrent writes of one agent document only lose
 * their version check and retry, each retry a read and a write more.
 */
export class AgentSync {
  private readonly running = new Map<string, { queued?: Queued; last?: AgentRecord }>();

  constructor(private readonly ctx: RoutingContext) {}

  /**
   * Reconciles one agent with the legs of the interactions it holds plus `extra` ones, or, given `only`, of
   * those interactions alone (after a change of one interaction: its work item is the only one that can have
   * moved, so the agent's other interactions are not read); retries on a concurrent agent write. Wakes
   * routing when capacity was freed. Resolves once a reconciliation that started after this call is done.
   */
  async sync(accountId: string, agentId: string, opts: SyncRequest = {}): Promise<void> {
    const key = `${accountId}\u001f${agentId}`;
    const slot = this.running.get(key);
    if (!slot) {
      const mine: { queued?: Queued; last?: AgentRecord } = {};
      this.running.set(key, mine);
      try {
        mine.last = await this.reconcile(accountId, agentId, opts);
      } finally {
        this.drain(key, accountId, agentId, mine);
      }
      return;
    }
    let q = slot.queued;
    if (!q) {
      let resolve!: () => void;
      let reject!: (err: unknown) => void;
      const done = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      q = { only: new Set(), extra: new Set(), abandon: new Set(), known: new Map(), done, resolve, reject };
      if (opts.traceparent) q.traceparent = opts.traceparent;
      slot.queued = q;
    }
    if (opts.only && q.only) for (const id of opts.only) q.only.add(id);
    else q.only = null;
    // A scoped request's interactions stay in an unscoped merge too (a leg its agent has no work item for yet
    // is only adopted if its interaction is read).
    for (const id of [...(opts.extra ?? []), ...(opts.only ?? [])]) q.extra.add(id);
    for (const c of opts.abandon ?? []) q.abandon.add(c);
    if (opts.known && (q.known.get(opts.known.interactionId)?.version ?? -1) < opts.known.version)
      q.known.set(opts.known.interactionId, opts.known);
    await q.done;
  }

  /** Runs the requests that queued behind a reconciliation, one merged reconciliation at a time. */
  private drain(key: string, accountId: string, agentId: string, slot: { queued?: Queued; last?: AgentRecord }): void {
    const q = slot.queued;
    if (!q) {
      this.running.delete(key);
      return;
    }
    slot.queued = undefined;
    const request: SyncRequest & { knownMany: Map<string, InteractionRecord> } = {
      ...(q.only ? { only: [...q.only] } : { extra: [...q.extra] }),
      ...(q.abandon.size ? { abandon: q.abandon } : {}),
      ...(q.traceparent ? { traceparent: q.traceparent } : {}),
      // The agent as the previous reconciliation wrote it: if nobody wrote it since, no read is needed.
      ...(slot.last ? { agent: slot.last } : {}),
      knownMany: q.known,
    };
    void this.reconcile(accountId, agentId, request)
      .then((last) => {
        slot.last = last;
        q.resolve();
      }, q.reject)
      .finally(() => this.drain(key, accountId, agentId, slot));
  }

  /** One reconciliation; returns the agent as written (or read, if nothing changed), if known. */
  private async reconcile(
    accountId: string,
    agentId: string,
    opts: SyncRequest & { knownMany?: Map<string, InteractionRecord> },
  ): Promise<AgentRecord | undefined> {
    const { settings } = this.ctx;
    const knownMany = new Map(opts.knownMany ?? []);
    if (opts.known) knownMany.set(opts.known.interactionId, opts.known);
    for (let attempt = 0; attempt < 8; attempt++) {
      // A caller's fresh reads (the agent, the interactions just written) serve the first attempt.
      const agent = attempt === 0 && opts.agent ? opts.agent : await this.ctx.agents.get(accountId, agentId);
      if (!agent) return undefined;
      const ids = opts.only
        ? [...new Set(opts.only)]
        : [...new Set([...agent.work.map((w) => w.interactionId), ...(opts.extra ?? [])])];
      const known = attempt === 0 ? [...knownMany.values()].filter((k) => ids.includes(k.interactionId)) : [];
      const knownIds = new Set(known.map((k) => k.interactionId));
      const interactions = [
        ...known,
        ...(await this.ctx.interactions.legsOf(
          accountId,
          ids.filter((id) => !knownIds.has(id)),
        )),
      ];
      const legs: LegView[] = interactions.flatMap((i) =>
        i.legs.filter((l) => l.agentId === agentId).map((leg) => ({ interaction: i, leg })),
      );
      const change = reconcileAgentWork(agent, legs, {
        now: Date.now(),
        reserveGraceMs: settings.reserveGraceMs,
        missedOffersAway: settings.missedOffersAway,
        ...(opts.abandon ? { abandon: opts.abandon } : {}),
        ...(opts.only ? { only: new Set(ids) } : {}),
      });
      if (change.next === agent) return agent;
      const events = toCloudEvents(accountId, agentId, change.events, opts.traceparent);
      const staged = await this.ctx.agents.save(change.next, agent.version, events);
      if (staged) {
        void this.ctx.publisher.soon(this.ctx.agents.outboxModel, agentId, { staged });
        const failed = change.events.filter((e) => e.data.segment === 'Ringing' && e.data.outcome === 'Failed');
        if (failed.length) {
          // Which path dropped a reservation: the engine's lost offer write (abandon), or its grace ran out.
          this.ctx.logger.debug(
            {
              accountId,
              agentId,
              channels: failed.map((e) => (e.data.channel as { guid: string }).guid),
              abandoned: opts.abandon !== undefined,
            },
            'agent reservation dropped',
          );
        }
        if (change.wake) await this.ctx.waker.wake(accountId);
        return change.next;
      }
    }
    this.ctx.logger.warn({ accountId, agentId }, 'agent sync kept conflicting; the engine will repeat it');
    return undefined;
  }

  /**
   * Syncs every agent the interaction's last change named (`agent`: a fresh read of one of them), for that
   * interaction only. A crash before this ends is repaired by the engine, which compares legs and work lists
   * on every pass.
   */
  async afterChange(rec: InteractionRecord, traceparent?: string, agent?: AgentRecord): Promise<void> {
    for (const agentId of rec.syncAgents) {
      await this.sync(rec.accountId, agentId, {
        only: [rec.interactionId],
        known: rec,
        ...(agent?.agentId === agentId ? { agent } : {}),
        ...(traceparent ? { traceparent } : {}),
      });
    }
  }
}

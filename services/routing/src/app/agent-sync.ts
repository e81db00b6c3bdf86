import { type LegView, reconcileAgentWork } from '../domain/agent';
import type { AgentRecord, InteractionRecord } from '../domain/types';
import { toCloudEvents } from '../events/publisher';
import type { RoutingContext } from './context';

/**
 * Brings agents' work lists in step with the interactions (the source of truth): every interaction
 * change names its agents (`syncAgents`); after the interaction write, each of them is reconciled, and
 * the engine repeats it for changes a crash interrupted.
 */
export class AgentSync {
  constructor(private readonly ctx: RoutingContext) {}

  /**
   * Reconciles one agent with the legs of the interactions it holds plus `extra` ones; retries on a
   * concurrent agent write. Wakes routing when capacity was freed.
   */
  async sync(
    accountId: string,
    agentId: string,
    opts: {
      extra?: string[];
      abandon?: Set<string>;
      traceparent?: string;
      known?: InteractionRecord;
      agent?: AgentRecord;
    } = {},
  ): Promise<void> {
    const { settings } = this.ctx;
    for (let attempt = 0; attempt < 8; attempt++) {
      // A caller's fresh reads (the agent, the interaction just written) serve the first attempt.
      const agent = attempt === 0 && opts.agent ? opts.agent : await this.ctx.agents.get(accountId, agentId);
      if (!agent) return;
      const ids = [...new Set([...agent.work.map((w) => w.interactionId), ...(opts.extra ?? [])])];
      const known = attempt === 0 ? opts.known : undefined;
      const interactions = [
        ...(known && ids.includes(known.interactionId) ? [known] : []),
        ...(await this.ctx.interactions.legsOf(
          accountId,
          ids.filter((id) => id !== known?.interactionId),
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
      });
      if (change.next === agent) return;
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
        return;
      }
    }
    this.ctx.logger.warn({ accountId, agentId }, 'agent sync kept conflicting; the engine will repeat it');
  }

  /**
   * Syncs every agent the interaction's last change named (`agent`: a fresh read of one of them). A crash
   * before this ends is repaired by the engine, which compares legs and work lists on every pass.
   */
  async afterChange(rec: InteractionRecord, traceparent?: string, agent?: AgentRecord): Promise<void> {
    for (const agentId of rec.syncAgents) {
      await this.sync(rec.accountId, agentId, {
        extra: [rec.interactionId],
        known: rec,
        ...(agent?.agentId === agentId ? { agent } : {}),
        ...(traceparent ? { traceparent } : {}),
      });
    }
  }
}

import { routingError } from '../domain/errors';
import type { Transition } from '../domain/interaction';
import type { AgentRecord, InteractionRecord } from '../domain/types';
import { toCloudEvents } from '../events/publisher';
import type { AgentSync } from './agent-sync';
import type { RoutingContext } from './context';

/** Applies domain transitions to stored interactions: read, decide, conditional write, publish, sync agents. */
export class InteractionActions {
  constructor(
    private readonly ctx: RoutingContext,
    private readonly sync: AgentSync,
  ) {}

  /**
   * Runs `change` on the current interaction and writes the result with its events in one conditional
   * update; on a concurrent change it re-reads and decides again. `change` may throw a coded error
   * (invalid state, permission), which is passed on. Returns the interaction after the change.
   */
  async apply(
    accountId: string,
    interactionId: string,
    change: (rec: InteractionRecord) => Transition,
    opts: { traceparent?: string; notFound?: string; initial?: InteractionRecord; agent?: AgentRecord } = {},
  ): Promise<InteractionRecord> {
    for (let attempt = 0; attempt < 8; attempt++) {
      // The caller's fresh read serves the first attempt; a lost race reads again.
      const rec =
        attempt === 0 && opts.initial ? opts.initial : await this.ctx.interactions.get(accountId, interactionId);
      if (!rec) throw routingError('REQUEST.NOT_FOUND', opts.notFound ?? `No interaction ${interactionId}`);
      const t = change(rec);
      if (t.next === rec) return rec;
      const saved = await this.commit(rec, t, opts.traceparent, attempt === 0 ? opts.agent : undefined);
      if (saved) return t.next;
    }
    throw routingError('REQUEST.CONFLICT', `Interaction ${interactionId} is changing too often; try again`);
  }

  /** Writes one transition of a record read at `rec.version`; false on a concurrent change. */
  async commit(rec: InteractionRecord, t: Transition, traceparent?: string, agent?: AgentRecord): Promise<boolean> {
    const events = toCloudEvents(rec.accountId, rec.interactionId, t.events, traceparent);
    const staged = await this.ctx.interactions.save(t.next, rec.version, events, t.decision);
    if (!staged) return false;
    void this.ctx.publisher.soon(this.ctx.interactions.outboxModel, rec.interactionId, { staged });
    await this.sync.afterChange(t.next, traceparent, agent);
    if (t.next.state === 'queued') await this.ctx.waker.wake(rec.accountId);
    return true;
  }
}

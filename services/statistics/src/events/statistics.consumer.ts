import type { CloudEvent, HandlerContext } from '@cc/bus';
import { type ActivityWrite, type AgentActivityEvent, activityWrites } from '../domain/agent-activity';
import type { LoggedEvent } from '../domain/interaction-record';
import type { InteractionEventWrite, StatisticsRepository } from '../store/statistics.repository';

/** Interaction event types that shape a record; `interaction.recorded` belongs to analysis. */
const recordEvents = new Set([
  'interaction.queued',
  'interaction.applet-executed',
  'interaction.offered',
  'interaction.assigned',
  'interaction.rejected',
  'interaction.held',
  'interaction.retrieved',
  'interaction.transferred',
  'interaction.wrap-started',
  'interaction.wrap-ended',
  'interaction.released',
]);

interface Pending {
  activities: Map<string, ActivityWrite[]>;
  interactions: InteractionEventWrite[];
}

/**
 * The consumer of agent-activity and interaction events. `handle` only buffers (per topic-partition); `flush`
 * writes a whole fetched batch with a constant number of store round trips before its offsets are committed
 * (group commit), so a crash redelivers the batch and the natural-key upserts rewrite the same items.
 */
export class StatisticsConsumer {
  private readonly pending = new Map<string, Pending>();
  /** Events written by flushes so far (for metrics and the benchmark). */
  written = 0;

  constructor(
    private readonly repo: StatisticsRepository,
    private readonly now: () => number = Date.now,
  ) {}

  /** The per-event handler: validates nothing itself (the consumer did), computes the writes, buffers them. */
  readonly handle = async (event: CloudEvent, ctx: HandlerContext): Promise<void> => {
    const accountId = event.accountid as string;
    const p = this.bufferOf(ctx.topic, ctx.partition);
    if (event.type.startsWith('agent-activity.')) {
      const writes = activityWrites({ type: event.type, data: event.data } as AgentActivityEvent);
      const list = p.activities.get(accountId) ?? [];
      list.push(...writes);
      p.activities.set(accountId, list);
    } else if (recordEvents.has(event.type)) {
      const data = event.data as LoggedEvent['data'];
      p.interactions.push({ accountId, event: { type: event.type, sequence: data.sequence as number, data } });
    }
  };

  /**
   * Writes what the batch of `topic`/`partition` buffered. The buffer is kept until a flush succeeds: whether the
   * consumer then refetches the batch (buffered twice, rewritten to the same keys) or moves on, nothing is lost.
   */
  readonly flush = async ({ topic, partition }: { topic: string; partition: number }): Promise<void> => {
    const key = `${topic}:${partition}`;
    const p = this.pending.get(key);
    if (!p) return;
    const now = this.now();
    const activities = [...p.activities].map(([accountId, writes]) => ({ accountId, writes }));
    if (activities.length) await this.repo.writeActivities(activities, now);
    if (p.interactions.length) await this.repo.writeInteractionEvents(p.interactions, now);
    if (this.pending.get(key) === p) this.pending.delete(key);
    this.written += activities.reduce((n, a) => n + a.writes.length, 0) + p.interactions.length;
  };

  private bufferOf(topic: string, partition: number): Pending {
    const key = `${topic}:${partition}`;
    const p = this.pending.get(key) ?? { activities: new Map(), interactions: [] };
    this.pending.set(key, p);
    return p;
  }
}

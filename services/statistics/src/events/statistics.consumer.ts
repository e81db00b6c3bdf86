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
  /**
   * How the consumer group runs: partitions handled side by side (their batches share writes, see `flush`),
   * fetches big enough that a write carries many events, and the next fetches handled while a write runs (a batch's
   * offsets are committed once the write holding it landed), and one span per batch (statistics sends nothing on, so
   * no trace continues from an event).
   */
  static readonly consumerOptions = {
    partitionsConsumedConcurrently: 6,
    maxBytesPerPartition: 4 * 1024 * 1024,
    writesInFlight: 16,
    spans: 'batch' as const,
  };

  private pending = new Map<string, Pending>();
  /** A write waiting behind the running one: batches finishing meanwhile join it. */
  private queued: Promise<void> | null = null;
  private running: Promise<void> = Promise.resolve();
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
   * Writes what the batch of `topic`/`partition` buffered, together with whatever other partitions buffered by the
   * time the write starts: batches that finish while a write runs share the next one (group commit), so the store
   * sees one write per round rather than one per partition. A buffer is kept until a write of it succeeds: whether
   * the consumer then refetches the batch (buffered twice, rewritten to the same keys) or moves on, nothing is lost.
   */
  readonly flush = (_ctx: { topic: string; partition: number }): Promise<void> => {
    if (this.queued) return this.queued;
    const next = this.running.then(
      () => this.writeAll(),
      () => this.writeAll(),
    );
    this.queued = next;
    this.running = next.catch(() => undefined);
    return next;
  };

  private async writeAll(): Promise<void> {
    this.queued = null;
    const taken = this.pending;
    if (!taken.size) return;
    this.pending = new Map();
    const activities = new Map<string, ActivityWrite[]>();
    const interactions: InteractionEventWrite[] = [];
    for (const p of taken.values()) {
      for (const [accountId, writes] of p.activities) {
        const list = activities.get(accountId);
        if (list) list.push(...writes);
        else activities.set(accountId, [...writes]);
      }
      interactions.push(...p.interactions);
    }
    const now = this.now();
    try {
      const byAccount = [...activities].map(([accountId, writes]) => ({ accountId, writes }));
      if (byAccount.length) await this.repo.writeActivities(byAccount, now);
      if (interactions.length) await this.repo.writeInteractionEvents(interactions, now);
    } catch (err) {
      // Back into the buffers (before what arrived meanwhile, so the order of each partition's writes holds).
      for (const [key, p] of taken) {
        const later = this.pending.get(key);
        if (later) {
          for (const [accountId, writes] of later.activities) {
            const list = p.activities.get(accountId) ?? [];
            list.push(...writes);
            p.activities.set(accountId, list);
          }
          p.interactions.push(...later.interactions);
        }
        this.pending.set(key, p);
      }
      throw err;
    }
    this.written += [...activities.values()].reduce((n, w) => n + w.length, 0) + interactions.length;
  }

  private bufferOf(topic: string, partition: number): Pending {
    const key = `${topic}:${partition}`;
    const p = this.pending.get(key) ?? { activities: new Map(), interactions: [] };
    this.pending.set(key, p);
    return p;
  }
}

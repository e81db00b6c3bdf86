import type { CloudEvent, HandlerContext } from '@cc/bus';
import type { AgentActivityEvent } from '../domain/agent-activity';
import type { LoggedEvent } from '../domain/interaction-record';
import { ActivityRound } from '../store/activity-chunk.codec';
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

/**
 * The consumer of agent-activity and interaction events. `handle` only buffers (activities straight into the rows of
 * the next write round, interaction events as they are); `flush`
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

  /** What the next write round holds; rounds whose write failed wait (oldest first) to be written with it. */
  private activities = new ActivityRound();
  private interactions: InteractionEventWrite[] = [];
  private failed: { activities: ActivityRound[]; interactions: InteractionEventWrite[] } | null = null;
  /** A write waiting behind the running one: batches finishing meanwhile join it. */
  private queued: Promise<void> | null = null;
  private running: Promise<void> = Promise.resolve();
  /** Events written by flushes so far (for metrics and the benchmark). */
  written = 0;

  constructor(
    private readonly repo: StatisticsRepository,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Buffers one event (the bus consumer's synchronous `handleEach` fast path): validates nothing itself (the consumer
   * did), puts an agent activity's rows straight into the next write round, keeps an interaction event as it is.
   */
  readonly handleEach = (event: CloudEvent): void => {
    const accountId = event.accountid as string;
    if (event.type.startsWith('agent-activity.')) {
      this.activities.addEvent(accountId, event as unknown as AgentActivityEvent);
    } else if (recordEvents.has(event.type)) {
      const data = event.data as LoggedEvent['data'];
      this.interactions.push({ accountId, event: { type: event.type, sequence: data.sequence as number, data } });
    }
  };

  /** The per-event handler (the consumer's slow path: retries, dead letters): the same as {@link handleEach}. */
  readonly handle = async (event: CloudEvent, _ctx: HandlerContext): Promise<void> => this.handleEach(event);

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
    const activities = [...(this.failed?.activities ?? []), this.activities];
    const interactions = [...(this.failed?.interactions ?? []), ...this.interactions];
    this.failed = null;
    this.activities = new ActivityRound();
    this.interactions = [];
    const writes = activities.reduce((n, r) => n + r.writes, 0);
    if (!writes && !interactions.length) return;
    const now = this.now();
    try {
      if (writes) await this.repo.writeActivityRounds(activities, now);
      if (interactions.length) await this.repo.writeInteractionEvents(interactions, now);
    } catch (err) {
      // Kept for the next write, before what arrived meanwhile (so each key's later writes still win).
      this.failed = { activities, interactions };
      throw err;
    }
    this.written += writes + interactions.length;
  }
}

import type { BatchContext, CloudEvent, HandlerContext } from '@cc/bus';
import type { Logger } from '@cc/kit';
import type { SummaryBook } from '../domain/book';
import type { AccountFlags } from '../domain/flags';

/**
 * Handles agent-activity events (into the in-memory buckets) and account flag events. Writes happen once
 * per batch, after the handlers (see the consumer's `flush`).
 */
export function summariesEventHandler(
  book: SummaryBook,
  flags: AccountFlags,
  recent: RecentIds = new RecentIds(),
  now: () => number = Date.now,
) {
  return async (event: CloudEvent, ctx: HandlerContext): Promise<void> => {
    if (recent.has(event.id)) return;
    if (event.type.startsWith('agent-activity.')) {
      book.apply(event.accountid, event as { type: string; data: unknown }, now());
    } else if (event.type === 'account.feature-flags-changed') {
      applyFlags(flags, event, ctx.log);
    }
    recent.add(event.id);
  };
}

/**
 * The same, synchronously, for the bus consumer's `handleEach` fast path: no promise, closure or span per event, and
 * each parsed event dies young (handed over in slices, a batch's events outlived the young generation). Applying is
 * idempotent per event, as the bus asks of a fast path that may be followed by the event-by-event path.
 */
export function summariesEachHandler(
  book: SummaryBook,
  flags: AccountFlags,
  recent: RecentIds = new RecentIds(),
  now: () => number = Date.now,
) {
  return (event: CloudEvent, ctx: BatchContext): void => {
    if (recent.has(event.id)) return;
    if (event.type.startsWith('agent-activity.'))
      book.apply(event.accountid, event as { type: string; data: unknown }, now());
    else if (event.type === 'account.feature-flags-changed') applyFlags(flags, event, ctx.log);
    recent.add(event.id);
  };
}

function applyFlags(flags: AccountFlags, event: CloudEvent, log: Logger): void {
  const data = event.data as { flags: { agentSummaries: boolean }; occurredAt: string };
  if (flags.apply({ accountId: event.accountid, enabled: data.flags.agentSummaries, at: Date.parse(data.occurredAt) }))
    log.info({ accountId: event.accountid, agentSummaries: data.flags.agentSummaries }, 'summaries flag changed');
}

/**
 * The ids of the last `capacity` events applied to memory, checked as each event is handled (not by the bus's
 * deduper, which would parse each fetched batch whole up front to look its ids up first, and keep it alive while it
 * is applied). Applying an event twice changes no bucket (each interval's share is replaced, not added), so this only
 * saves work: an id is remembered once the event is in memory, which is what a redelivery (a failed write's rewind,
 * whose changes stay dirty in memory) would repeat; after a crash memory and ids start empty together. A store-backed
 * deduper would cost a store lookup and write per batch for nothing.
 */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity = 200_000) {}

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Remembers `id` (once its event was applied: one that threw is handled again), forgetting the oldest past `capacity`. */
  add(id: string): void {
    if (this.ids.has(id)) return;
    this.ids.add(id);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value as string);
  }
}

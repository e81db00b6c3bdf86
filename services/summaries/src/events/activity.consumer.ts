import type { BatchContext, CloudEvent, Deduper, HandlerContext } from '@cc/bus';
import type { Logger } from '@cc/kit';
import type { SummaryBook } from '../domain/book';
import type { AccountFlags } from '../domain/flags';

/**
 * Handles agent-activity events (into the in-memory buckets) and account flag events. Writes happen once
 * per batch, after the handlers (see the consumer's `flush`).
 */
export function summariesEventHandler(book: SummaryBook, flags: AccountFlags, now: () => number = Date.now) {
  return async (event: CloudEvent, ctx: HandlerContext): Promise<void> => {
    if (event.type.startsWith('agent-activity.')) {
      book.apply(event.accountid, event as { type: string; data: unknown }, now());
    } else if (event.type === 'account.feature-flags-changed') {
      applyFlags(flags, event, ctx.log);
    }
  };
}

/**
 * The same, synchronously, for the bus consumer's `handleEach` fast path: no promise, closure or span per event, and
 * each parsed event dies young (handed over in slices, a batch's events outlived the young generation). Applying is
 * idempotent per event, as the bus asks of a fast path that may be followed by the event-by-event path.
 */
export function summariesEachHandler(book: SummaryBook, flags: AccountFlags, now: () => number = Date.now) {
  return (event: CloudEvent, ctx: BatchContext): void => {
    if (event.type.startsWith('agent-activity.'))
      book.apply(event.accountid, event as { type: string; data: unknown }, now());
    else if (event.type === 'account.feature-flags-changed') applyFlags(flags, event, ctx.log);
  };
}

function applyFlags(flags: AccountFlags, event: CloudEvent, log: Logger): void {
  const data = event.data as { flags: { agentSummaries: boolean }; occurredAt: string };
  if (flags.apply({ accountId: event.accountid, enabled: data.flags.agentSummaries, at: Date.parse(data.occurredAt) }))
    log.info({ accountId: event.accountid, agentSummaries: data.flags.agentSummaries }, 'summaries flag changed');
}

/**
 * Remembers the last `capacity` handled event ids in memory. Applying an event twice changes no bucket
 * (each interval's share is replaced, not added), so this only saves work; it spares the store one
 * lookup and one write per event, which a store-backed deduper would cost.
 */
export function memoryDeduper(capacity = 200_000): Deduper {
  const seen = new Set<string>();
  return {
    async seenMany(ids) {
      return new Set(ids.filter((id) => seen.has(id)));
    },
    async markMany(ids) {
      for (const id of ids) {
        seen.add(id);
        if (seen.size > capacity) seen.delete(seen.values().next().value as string);
      }
    },
  };
}

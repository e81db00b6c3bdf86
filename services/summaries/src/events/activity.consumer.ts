import type { BatchContext, CloudEvent, HandlerContext } from '@cc/bus';
import type { Logger } from '@cc/kit';
import type { KafkaMessage } from 'kafkajs';
import type { SummaryBook } from '../domain/book';
import type { AccountFlags } from '../domain/flags';
import { type ReadBatch, readItems } from './ingest-read';

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
 * The bus consumer's `handleRaw` fast path: the batch is parsed, validated and deduplicated (by event id,
 * the worker's own {@link RecentIds}) on the ingest worker, and what its events say is applied here, in order. The
 * batch goes to the worker in chunks of `chunk` messages, all posted at once: this thread applies one chunk while the
 * worker reads the next. The worker stops at the first message that is not a valid event (and a chunk the worker
 * failed on stops it too); the bus goes on from there event by event, and later chunks are not applied here.
 */
export function summariesRawHandler(
  ingest: { read: (topic: string, messages: KafkaMessage[]) => Promise<ReadBatch> },
  book: SummaryBook,
  flags: AccountFlags,
  opts: { chunk?: number; now?: () => number } = {},
) {
  const size = Math.max(1, opts.chunk ?? 1000);
  const now = opts.now ?? Date.now;
  return async (messages: KafkaMessage[], ctx: BatchContext): Promise<number> => {
    const chunks: Promise<ReadBatch>[] = [];
    for (let i = 0; i < messages.length; i += size) {
      const read = ingest.read(ctx.topic, messages.slice(i, i + size));
      read.catch(() => undefined); // awaited below in order, or not at all after a stop
      chunks.push(read);
    }
    let handled = 0;
    for (let c = 0; c < chunks.length; c++) {
      let read: ReadBatch;
      try {
        read = await (chunks[c] as Promise<ReadBatch>);
      } catch (err) {
        if (c === 0) throw err;
        ctx.log.warn({ err: (err as Error).message, topic: ctx.topic }, 'ingest worker failed on a chunk');
        break;
      }
      const at = now();
      for (const item of readItems(read)) {
        if ('event' in item) {
          if (item.event.type === 'account.feature-flags-changed') applyFlags(flags, item.event, ctx.log);
        } else book.applyIntervals(item.accountId, item.agentId, item.closed, item.opened, at);
      }
      handled += read.handled;
      if (read.handled < Math.min(size, messages.length - c * size)) break;
    }
    return handled;
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

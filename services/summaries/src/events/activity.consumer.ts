import type { BatchContext, CloudEvent, HandlerContext } from '@cc/bus';
import type { Logger } from '@cc/kit';
import type { KafkaMessage } from 'kafkajs';
import type { SummaryBook } from '../domain/book';
import type { AccountFlags } from '../domain/flags';
import { type ReadChunk, readItems } from './ingest-read';
import { RecentIds } from './recent-ids';

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
 * The bus consumer's `handleRaw` fast path: the batch is parsed, validated and deduplicated by event id on the ingest
 * worker, and what its events say is applied here, in order. The batch goes to the worker in chunks of `chunk`
 * messages, all posted at once: this thread applies one chunk while the worker reads the next. The worker stops at
 * the first message that is not a valid event (and a chunk the worker failed on stops it too); the bus goes on from
 * there event by event, and later chunks are not applied here. Each chunk read is settled: applied (the worker skips
 * its ids from then on) or not (the worker forgets them, so a redelivery reads those events again).
 */
export function summariesRawHandler(
  ingest: {
    read: (topic: string, messages: KafkaMessage[]) => Promise<ReadChunk>;
    settle: (read: ReadChunk, applied: boolean) => void;
  },
  book: SummaryBook,
  flags: AccountFlags,
  opts: { chunk?: number; now?: () => number } = {},
) {
  const size = Math.max(1, opts.chunk ?? 1000);
  const now = opts.now ?? Date.now;
  return async (messages: KafkaMessage[], ctx: BatchContext): Promise<{ handled: number; duplicates: number }> => {
    const chunks: Promise<ReadChunk>[] = [];
    for (let i = 0; i < messages.length; i += size) chunks.push(ingest.read(ctx.topic, messages.slice(i, i + size)));
    // Chunks not applied (after a stop) are settled as not applied once read.
    const skipFrom = (from: number) => {
      for (let k = from; k < chunks.length; k++)
        (chunks[k] as Promise<ReadChunk>).then((r) => ingest.settle(r, false)).catch(() => undefined);
    };
    let handled = 0;
    let duplicates = 0;
    for (let c = 0; c < chunks.length; c++) {
      let read: ReadChunk;
      try {
        read = await (chunks[c] as Promise<ReadChunk>);
      } catch (err) {
        skipFrom(c + 1);
        if (c === 0) throw err;
        ctx.log.warn({ err: (err as Error).message, topic: ctx.topic }, 'ingest worker failed on a chunk');
        break;
      }
      try {
        const at = now();
        for (const item of readItems(read)) {
          if ('event' in item) {
            if (item.event.type === 'account.feature-flags-changed') applyFlags(flags, item.event, ctx.log);
          } else book.applyIntervals(item.accountId, item.agentId, item.closed, item.opened, at);
        }
      } catch (err) {
        ingest.settle(read, false);
        skipFrom(c + 1);
        throw err;
      }
      ingest.settle(read, true);
      handled += read.handled;
      duplicates += read.duplicates;
      if (read.handled < Math.min(size, messages.length - c * size)) {
        skipFrom(c + 1);
        break;
      }
    }
    return { handled, duplicates };
  };
}

function applyFlags(flags: AccountFlags, event: CloudEvent, log: Logger): void {
  const data = event.data as { flags: { agentSummaries: boolean }; occurredAt: string };
  if (flags.apply({ accountId: event.accountid, enabled: data.flags.agentSummaries, at: Date.parse(data.occurredAt) }))
    log.info({ accountId: event.accountid, agentSummaries: data.flags.agentSummaries }, 'summaries flag changed');
}

import { type CloudEvent, type EagerPublisher, newEvent, type Staged } from '@cc/bus';
import type { DomainEvent } from '../domain/types';
import { GroupCommit } from '../store/group-commit';

/** The CloudEvents `source` of every routing event. */
export const eventSource = '/cc/routing';

/** Wraps domain events of one aggregate into CloudEvents (time = the event's exact instant). */
export function toCloudEvents(
  accountId: string,
  subject: string,
  events: DomainEvent[],
  traceparent?: string,
): CloudEvent[] {
  return events.map((e) =>
    newEvent({
      source: eventSource,
      type: e.type,
      subject,
      accountId,
      data: e.data,
      time: new Date(e.at),
      ...(traceparent ? { traceparent } : {}),
    }),
  );
}

/** What a write left pending in a document's outbox (the bus's type; the eager publisher is the bus's too). */
export type { Staged };

/** One document's publication: its id and what its write staged. */
type Item = { id: string; staged: Staged };

/**
 * Eager publication grouped across concurrent writers (a group commit of the publish): documents whose
 * writes finish while a publication is in flight go together in one produce call and one bulk outbox clear.
 * Never awaited by a request: the outboxes hold the events, and a failure is left to the relay by the
 * publisher. From `add` on, the relay's sweep passes these documents (under a burst they may wait in this queue
 * longer than its grace period; it would publish them a second time). `model` is read at publication time.
 */
class GroupedPublication extends GroupCommit<Item, null> {
  constructor(
    private readonly publisher: () => EagerPublisher,
    private readonly model: () => Parameters<EagerPublisher['soonMany']>[0],
  ) {
    super(async (items) => {
      await publisher()
        .soonMany(model(), items)
        .catch(() => undefined);
      return items.map(() => null);
    });
  }

  override async add(items: Item[]): Promise<null[]> {
    // Queued from now on: an earlier publication of one of these documents whose clear misses (this write staged
    // more) leaves the document to this one.
    const release = this.publisher().hold(
      this.model(),
      items.map((i) => i.id),
      items.map((i) => i.staged.seq),
    );
    try {
      return await super.add(items);
    } finally {
      release();
    }
  }
}

/** See {@link GroupedPublication}. */
export function groupedPublication(
  publisher: () => EagerPublisher,
  model: () => Parameters<EagerPublisher['soonMany']>[0],
): GroupCommit<Item, null> {
  return new GroupedPublication(publisher, model);
}

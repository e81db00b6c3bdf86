import {
  type CloudEvent,
  type EventProducer,
  newEvent,
  type OutboxEntry,
  type OutboxModel,
  type OutboxRelay,
} from '@cc/bus';
import type { Logger } from '@cc/kit';
import { crossAccount } from '@cc/store';
import type { DomainEvent } from '../domain/types';

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

/** What a write left pending in a document's outbox (returned by the write itself, so no re-read). */
export interface Staged {
  entries: OutboxEntry[];
  seq: number;
}

/**
 * Eager publishing after an outbox write, serialised per document so two quick writes of one
 * aggregate are sent in order; whatever fails here is re-sent by the relay loop.
 */
export class EagerPublisher {
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly relay: OutboxRelay,
    private readonly producer: EventProducer,
    private readonly logger: Logger,
    private readonly enabled: boolean,
  ) {}

  /**
   * Schedules the publication of what is pending on the document; never throws. With `staged` (the
   * outbox as the write returned it) the entries are sent and cleared without reading the document
   * again; if more was staged meanwhile, the relay's flush sends the rest.
   */
  soon(model: OutboxModel, id: string, staged?: Staged | null): Promise<void> {
    if (!this.enabled) {
      // Left to the relay, on a timer for this document (after the grace period), not to a scan.
      this.relay.later(model, id);
      return Promise.resolve();
    }
    const key = `${model.collection.name}:${id}`;
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => (staged ? this.publishStaged(model, id, staged) : this.relay.flushSoon(model, id)))
      .catch((err) => {
        this.logger.warn({ err: (err as Error).message, id }, 'eager publish failed; retried on a timer');
        this.relay.later(model, id);
      });
    this.chains.set(key, next);
    void next.finally(() => {
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
    return next;
  }

  /**
   * Like {@link soon} for several new documents at once (an Invocation's interactions): their events go
   * in one produce call per topic and their outboxes are cleared in one bulk write. Later writes of these
   * documents publish after this (same per-document order as {@link soon}).
   */
  soonMany(model: OutboxModel, items: { id: string; staged: Staged }[]): Promise<void> {
    if (!items.length) return Promise.resolve();
    if (!this.enabled) {
      for (const { id } of items) this.relay.later(model, id);
      return Promise.resolve();
    }
    const keys = items.map(({ id }) => `${model.collection.name}:${id}`);
    const previous = keys.flatMap((k) => {
      const p = this.chains.get(k);
      return p ? [p] : [];
    });
    const next = Promise.all(previous)
      .then(() => this.publishStagedMany(model, items))
      .catch((err) => {
        this.logger.warn(
          { err: (err as Error).message, count: items.length },
          'eager publish failed; retried on a timer',
        );
        for (const { id } of items) this.relay.later(model, id);
      });
    for (const k of keys) this.chains.set(k, next);
    void next.finally(() => {
      for (const k of keys) if (this.chains.get(k) === next) this.chains.delete(k);
    });
    return next;
  }

  private async publishStagedMany(model: OutboxModel, items: { id: string; staged: Staged }[]): Promise<void> {
    // Per topic, each document's entries keep their order (Kafka orders by key = the document's subject).
    const byTopic = new Map<string, CloudEvent[]>();
    for (const { staged } of items)
      for (const e of staged.entries) {
        const list = byTopic.get(e.topic) ?? [];
        list.push(e.event);
        byTopic.set(e.topic, list);
      }
    for (const [topic, events] of byTopic) await this.producer.publish(topic, events);
    const cleared = await crossAccount(model, 'outbox: clear published entries by _id').bulkWrite(
      items.map(({ id, staged }) => ({
        updateOne: { filter: { _id: id, outboxSeq: staged.seq }, update: { $set: { outbox: [] } } },
      })),
      { ordered: false },
    );
    // Some document changed meanwhile: its relay flush sends what it holds now (rare).
    if (cleared.matchedCount !== items.length) for (const { id } of items) await this.relay.flushSoon(model, id);
  }

  private async publishStaged(model: OutboxModel, id: string, staged: Staged): Promise<void> {
    let i = 0;
    const { entries } = staged;
    // Consecutive entries of one topic go in one send, keeping the document's order.
    while (i < entries.length) {
      const topic = entries[i]?.topic as string;
      const run: CloudEvent[] = [];
      for (; i < entries.length && entries[i]?.topic === topic; i++) run.push((entries[i] as OutboxEntry).event);
      await this.producer.publish(topic, run);
    }
    const cleared = await crossAccount(model, 'outbox: clear published entries by _id').updateOne(
      { _id: id, outboxSeq: staged.seq },
      { $set: { outbox: [] } },
    );
    if (cleared.matchedCount !== 1) await this.relay.flushSoon(model, id);
  }

  /** Waits for every scheduled publication (shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }
}

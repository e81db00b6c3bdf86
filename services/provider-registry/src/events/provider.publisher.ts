import type { OutboxModel, OutboxRelay } from '@cc/bus';

/** How long a write waits for its eager publish before answering anyway. */
const eagerPublishWaitMs = 1000;

/**
 * Publishes a provider document's staged events right after its write, in order per provider, and waits for
 * that at most {@link eagerPublishWaitMs}: usually the event is out before the answer (routing learns the
 * provider sooner), while a Kafka outage never holds the request (the relay publishes what this misses).
 */
export class ProviderPublisher {
  /** Eager publishes in progress per document: chained so concurrent writes do not publish the same entries twice. */
  private readonly flushing = new Map<string, Promise<void>>();

  constructor(
    private readonly relay: OutboxRelay,
    /** The relay's view of the providers collection (see `providerModels`). */
    private readonly outbox: OutboxModel,
  ) {}

  /** Publishes what the document `id` has staged; resolves when sent or after the wait, whichever is first. */
  async publish(id: string): Promise<void> {
    const previous = this.flushing.get(id) ?? Promise.resolve();
    const next = previous.then(() => this.relay.flushSoon(this.outbox, id));
    this.flushing.set(id, next);
    void next.finally(() => {
      if (this.flushing.get(id) === next) this.flushing.delete(id);
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      next,
      new Promise<void>((r) => {
        timer = setTimeout(r, eagerPublishWaitMs);
      }),
    ]);
    clearTimeout(timer);
  }
}

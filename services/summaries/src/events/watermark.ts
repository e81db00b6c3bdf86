import type { Consumer } from 'kafkajs';

/**
 * How far the consumer has read: the start of its last fetch that found every partition caught up.
 * kafkajs fetches from a broker only after the previous fetch's batches were handled, so when a fetch
 * starts and no partition lagged at the end of its last batch, every event appended before the previous
 * fetch started has been handled. `graceMs` allows for events that occurred before they reached Kafka.
 */
export class Watermark {
  private readonly fetchStarts = new Map<number, number>();
  private readonly caughtUp = new Map<number, number>();
  private readonly lagging = new Set<string>();

  constructor(
    private readonly graceMs: number,
    private floor: number | null = null,
  ) {}

  /** Follows a consumer's fetches and batches. */
  attach(consumer: Consumer): void {
    const { FETCH_START, END_BATCH_PROCESS, GROUP_JOIN } = consumer.events;
    consumer.on(FETCH_START, (e) => this.fetchStarted(e.payload.nodeId, e.timestamp));
    consumer.on(END_BATCH_PROCESS, (e) =>
      this.batchEnded(`${e.payload.topic}/${e.payload.partition}`, Number(e.payload.offsetLag)),
    );
    // New partitions after a rebalance: nothing is known about them until a fetch cycle completes.
    consumer.on(GROUP_JOIN, () => {
      this.fetchStarts.clear();
      this.caughtUp.clear();
      this.lagging.clear();
    });
  }

  fetchStarted(nodeId: number, at: number): void {
    const previous = this.fetchStarts.get(nodeId);
    if (previous !== undefined && this.lagging.size === 0) this.caughtUp.set(nodeId, previous);
    this.fetchStarts.set(nodeId, at);
  }

  batchEnded(partition: string, offsetLag: number): void {
    if (offsetLag > 0) this.lagging.add(partition);
    else this.lagging.delete(partition);
  }

  /** Epoch ms before which every event has been handled (null: nothing known yet). Never goes back. */
  upTo(): number | null {
    if (this.caughtUp.size > 0) {
      const at = Math.min(...this.caughtUp.values()) - this.graceMs;
      if (this.floor === null || at > this.floor) this.floor = at;
    }
    return this.floor;
  }
}

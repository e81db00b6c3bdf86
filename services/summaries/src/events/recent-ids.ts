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

/**
 * Values read from the store, kept in memory for at most `freshMs` after they were read (then read
 * again), and dropped at once by this instance's own writes. Only values found are kept: a miss always
 * asks the store, so something created elsewhere is seen by the next request. A read that started
 * before a drop does not store its (possibly older) value.
 */
export class FreshCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  /** Bumped by every drop: a read that began under an older generation is not kept. */
  private generation = 0;

  constructor(
    private readonly freshMs: number,
    private readonly maxEntries = 50_000,
  ) {}

  /** The value read less than `freshMs` ago, if any. */
  get(key: string, now = Date.now()): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (now - e.at >= this.freshMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  /** Taken before a store read; pass it to `set` so a drop meanwhile wins. */
  get mark(): number {
    return this.generation;
  }

  /** Keeps a value read from the store at `mark` (unless dropped since, or caching is off). */
  set(key: string, value: V, mark: number, now = Date.now()): void {
    if (this.freshMs <= 0 || mark !== this.generation) return;
    // Oldest first out: the map keeps insertion order, and a refreshed key moves to the end.
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, at: now });
  }

  /** Forgets a key after a write of this instance changed it. */
  drop(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }
}

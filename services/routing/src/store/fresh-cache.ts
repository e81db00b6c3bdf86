/**
 * Values read from the store, kept in memory for at most `freshMs` after they were read (then read
 * again), and dropped at once by this instance's own writes. Only values found are kept: a miss always
 * asks the store, so something created elsewhere is seen by the next request. A read that started
 * before a drop does not store its (possibly older) value.
 */
export class FreshCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  /** Store reads in flight, by key: concurrent misses of one key share the read (see `load`). */
  private readonly reading = new Map<string, { mark: number; promise: Promise<V | undefined> }>();
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

  /**
   * The value of `key` read from the store by `read` (undefined: not found), kept as `set` keeps it. Concurrent
   * misses of one key share one read (a burst of Invokes when an entry expires sends one read, not one each),
   * but only a read that began after this instance's last drop, and only if it found a value that is
   * `enough`: a caller that finds nothing in a shared read reads again itself, so a name created elsewhere
   * after the shared read began is still seen at once.
   */
  async load(key: string, read: () => Promise<V | undefined>, enough: (v: V) => boolean = () => true) {
    // With caching off (freshMs 0) every caller reads the store itself, as it asked.
    const pending = this.freshMs > 0 ? this.reading.get(key) : undefined;
    if (pending && pending.mark === this.generation) {
      const shared = await pending.promise;
      if (shared !== undefined && enough(shared)) return shared;
    }
    // Taken as this read starts (after any wait above): a drop meanwhile is older than this read.
    const mark = this.generation;
    const promise = read().then((v) => {
      if (v !== undefined) this.set(key, v, mark);
      return v;
    });
    const entry = { mark, promise };
    this.reading.set(key, entry);
    const done = () => {
      if (this.reading.get(key) === entry) this.reading.delete(key);
    };
    promise.then(done, done);
    return promise;
  }

  /** Forgets a key after a write of this instance changed it. */
  drop(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }
}

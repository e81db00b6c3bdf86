/**
 * Group commit: items written by concurrent callers share one store round trip. A call is sent at once
 * when no write of this kind is in flight (no added latency when idle); calls arriving while writes are
 * in flight wait for one to finish and then go together, so under load a batch grows with the load and
 * round trips stay few. A caller's promise settles only when the write carrying its items answered, so
 * a resolved call still means "durably written".
 *
 * A batch holds at most `maxItems` items (large bulks stall the portable store for everyone); a caller's
 * items are never split across batches unless they alone exceed it.
 */
export class GroupCommit<I, R> {
  private readonly queue: { items: I[]; resolve: (r: R[]) => void; reject: (err: unknown) => void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    /** Writes the items in one round trip; returns one result per item, in order. */
    private readonly write: (items: I[]) => Promise<R[]>,
    private readonly opts: { maxItems: number; maxInFlight: number } = { maxItems: 50, maxInFlight: 2 },
  ) {}

  /** Writes the items (with those of concurrent callers); one result per item, in order. */
  async add(items: I[]): Promise<R[]> {
    if (!items.length) return [];
    const parts: Promise<R[]>[] = [];
    for (let i = 0; i < items.length; i += this.opts.maxItems) {
      const chunk = items.slice(i, i + this.opts.maxItems);
      parts.push(new Promise<R[]>((resolve, reject) => this.queue.push({ items: chunk, resolve, reject })));
    }
    this.schedule();
    return (await Promise.all(parts)).flat();
  }

  /** Batches once the current macrotask's callers have queued (same-tick callers share a write). */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.opts.maxInFlight || !this.queue.length) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.opts.maxInFlight && this.queue.length) {
      const batch: typeof this.queue = [];
      let size = 0;
      while (this.queue.length && size + (this.queue[0]?.items.length ?? 0) <= this.opts.maxItems) {
        const next = this.queue.shift() as (typeof this.queue)[number];
        batch.push(next);
        size += next.items.length;
      }
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.schedule();
      });
    }
  }

  private async run(batch: typeof this.queue): Promise<void> {
    try {
      const results = await this.write(batch.flatMap((b) => b.items));
      let at = 0;
      for (const b of batch) {
        b.resolve(results.slice(at, at + b.items.length));
        at += b.items.length;
      }
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }
}

/** A write that coalesces: callers that arrive before it is sent share it (e.g. one wake per account). */
export class Coalesced {
  private pending?: Promise<void>;
  private running?: Promise<void>;

  constructor(private readonly write: () => Promise<void>) {}

  /** Resolves after a write that started after this call. */
  run(): Promise<void> {
    if (this.pending) return this.pending;
    const after = this.running ?? Promise.resolve();
    const p: Promise<void> = after
      .catch(() => undefined)
      .then(() => {
        // From here on, new callers need a write that starts later than this one.
        if (this.pending === p) this.pending = undefined;
        this.running = p;
        return this.write();
      })
      .finally(() => {
        if (this.running === p) this.running = undefined;
      });
    this.pending = p;
    return p;
  }

  /** Whether nothing is queued or running (the owner may forget this instance). */
  get idle(): boolean {
    return !this.pending && !this.running;
  }
}

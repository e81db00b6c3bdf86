/**
 * Group commit: callers add items and wait; one flush at a time writes everything added meanwhile in
 * one call, so N concurrent deliveries cost one store round trip, not N. A failed flush is retried
 * (with a capped backoff) until it succeeds or the committer is stopped: what was accepted is not
 * dropped because the store blinked.
 */
export class GroupCommit<T> {
  private pending: { item: T; done: () => void; fail: (err: Error) => void }[] = [];
  private flushing?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly onRetry: (err: Error, attempt: number) => void = () => undefined,
  ) {}

  /** Adds an item; resolves once it is written. */
  add(item: T): Promise<void> {
    return new Promise<void>((done, fail) => {
      this.pending.push({ item, done, fail });
      this.kick();
    });
  }

  /** Resolves when everything added so far is written. */
  async drain(): Promise<void> {
    while (this.flushing || this.pending.length) {
      this.kick();
      await this.flushing;
    }
  }

  /** Stops retrying: waiting callers get an error, later ones too. */
  stop(): void {
    this.stopped = true;
    const left = this.pending;
    this.pending = [];
    for (const p of left) p.fail(new Error('stopped'));
  }

  private kick(): void {
    if (this.flushing || this.pending.length === 0) return;
    // Let the current turn of the event loop add its items first: they share this flush.
    this.flushing = new Promise<void>((r) => setImmediate(r)).then(() => this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      for (let attempt = 1; ; attempt++) {
        if (this.stopped) {
          for (const p of batch) p.fail(new Error('stopped'));
          return;
        }
        try {
          await this.write(batch.map((p) => p.item));
          for (const p of batch) p.done();
          return;
        } catch (err) {
          this.onRetry(err as Error, attempt);
          await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** (attempt - 1), 5000)));
        }
      }
    } finally {
      this.flushing = undefined;
      this.kick();
    }
  }
}

import { retry, retryPolicies } from '@cc/kit';

/**
 * Group commit: callers add items and wait; one flush at a time writes everything added meanwhile in
 * one call, so N concurrent deliveries cost one store round trip, not N. A failed flush is retried
 * (with a capped backoff) until it succeeds or the committer is stopped: what was accepted is not
 * dropped because the store blinked.
 */
export class GroupCommit<T> {
  private pending: { item: T; done: () => void; fail: (err: Error) => void }[] = [];
  private flushing?: Promise<void>;
  /** Aborted by {@link stop}: ends the retry of a failing flush. */
  private readonly stopping = new AbortController();

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
    this.stopping.abort(new Error('stopped'));
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
      await retry(() => this.write(batch.map((p) => p.item)), {
        policy: retryPolicies.write,
        what: 'group commit',
        signal: this.stopping.signal,
        onRetry: this.onRetry,
      });
      for (const p of batch) p.done();
    } catch (err) {
      // Only a stop ends the retries (the write policy retries every store error): callers learn it was not written.
      for (const p of batch) p.fail(err as Error);
    } finally {
      this.flushing = undefined;
      this.kick();
    }
  }
}

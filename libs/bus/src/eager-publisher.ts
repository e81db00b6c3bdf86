import type { Logger } from '@cc/kit';
import { type OutboxModel, type OutboxRelay, outboxKey, type Staged, type Superseded } from './outbox';

/** Options of {@link EagerPublisher.soon}. */
export interface SoonOptions {
  /** The outbox as the write returned it: sent and cleared without reading the document again. */
  staged?: Staged | null;
  /**
   * Resolve after at most this long even if the publish is still running (it goes on): a request answers in time
   * while Kafka is slow, and the relay covers what fails. Default: wait for the publish.
   */
  waitMs?: number;
}

/**
 * The one eager-publish path of the suite: right after an outbox write, publish what the document staged and clear
 * it; whatever fails is left in the document and handed to the relay ({@link OutboxRelay.later}: a timer for that
 * document, then the slow sweep). Publications of one document are chained, so two quick writes of one aggregate
 * go out in order and never send the same entries twice. Never throws.
 */
export class EagerPublisher {
  private readonly chains = new Map<string, Promise<void>>();
  /**
   * Per document (`outboxKey`), the publications of it this process has queued or running, each with the
   * `outboxSeq` of the outbox it sends (a flush reads the document when it starts: infinity). A publication whose
   * clear missed (a later write staged more) leaves the document to a later one rather than flushing it too.
   */
  private readonly queued = new Map<string, Set<Queued>>();
  /** Holds not yet released: publications their holders will hand over ({@link drain} waits for them too). */
  private readonly holds = new Set<Promise<void>>();

  constructor(
    private readonly opts: {
      relay: OutboxRelay;
      logger: Logger;
      /** False leaves every write to the relay's timer after its grace period (crash tests; default true). */
      enabled?: boolean;
    },
  ) {}

  /** Publishes what the document `id` has staged; resolves when done (or after `waitMs`). */
  soon(model: OutboxModel, id: unknown, options: SoonOptions = {}): Promise<void> {
    const { relay } = this.opts;
    if (this.opts.enabled === false) {
      relay.later(model, id);
      return Promise.resolve();
    }
    const { staged } = options;
    const next = this.chain(model, [id], [staged?.seq ?? Number.POSITIVE_INFINITY], (superseded) =>
      staged ? relay.publishStaged(model, id, staged.entries, staged.seq, superseded) : relay.flush(model, id),
    ).then(
      () => relay.forget(model, id),
      (err) => this.failed(err, model, [id]),
    );
    return options.waitMs === undefined ? next : within(next, options.waitMs);
  }

  /**
   * Like {@link soon} for several new documents at once (an Invocation's interactions): their events go in one
   * produce call per topic and their outboxes are cleared in bulk; later writes of these documents publish after.
   */
  soonMany(model: OutboxModel, items: { id: unknown; staged: Staged }[]): Promise<void> {
    const { relay } = this.opts;
    if (!items.length) return Promise.resolve();
    if (this.opts.enabled === false) {
      for (const { id } of items) relay.later(model, id);
      return Promise.resolve();
    }
    return this.chain(
      model,
      items.map(({ id }) => id),
      items.map(({ staged }) => staged.seq),
      (superseded) => relay.publishStagedMany(model, items, superseded),
    ).then(
      () => undefined,
      (err) =>
        this.failed(
          err,
          model,
          items.map(({ id }) => id),
        ),
    );
  }

  /**
   * Marks documents as published by this process (the relay's sweep passes them) until the returned function is
   * called: for a caller that queues publications before handing them to {@link soon} or {@link soonMany}. `seqs`
   * (one per id: the `outboxSeq` its write staged) tells earlier publications of these documents that this one will
   * send what they leave behind.
   */
  hold(model: OutboxModel, ids: unknown[], seqs?: number[]): () => void {
    const releaseHold = this.opts.relay.hold(model, ids);
    const registered = seqs
      ? this.enqueue(
          ids.map((id) => outboxKey(model, id)),
          seqs,
          true,
        )
      : undefined;
    let ended!: () => void;
    const open = new Promise<void>((resolve) => {
      ended = resolve;
    });
    this.holds.add(open);
    return () => {
      registered?.release();
      releaseHold();
      this.holds.delete(open);
      ended();
    };
  }

  /** Waits for every publication in progress and every one queued under a {@link hold} (shutdown). */
  async drain(): Promise<void> {
    while (this.chains.size || this.holds.size) await Promise.all([...this.chains.values(), ...this.holds]);
  }

  /**
   * Runs `work` after every earlier publication of these documents, and registers it as their latest; the relay's
   * sweep passes them until it settled (a failure has been handed to the relay's retry by then).
   */
  private chain(
    model: OutboxModel,
    ids: unknown[],
    seqs: number[],
    work: (superseded: Superseded) => Promise<unknown>,
  ): Promise<void> {
    const keys = ids.map((id) => outboxKey(model, id));
    const releaseHold = this.opts.relay.hold(model, ids);
    const own = this.enqueue(keys, seqs, false);
    // Another queued publication of the document will send its outbox as of a later write.
    const superseded: Superseded = (id, seq) => {
      for (const q of this.queued.get(outboxKey(model, id)) ?? []) if (!own.mine.has(q) && q.seq > seq) return true;
      return false;
    };
    const previous = keys.flatMap((k) => {
      const p = this.chains.get(k);
      return p ? [p] : [];
    });
    const next = Promise.all(previous)
      .then(() => work(superseded))
      .then(() => undefined);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    for (const k of keys) this.chains.set(k, settled);
    void settled.then(() => {
      own.release();
      releaseHold();
      for (const k of keys) if (this.chains.get(k) === settled) this.chains.delete(k);
    });
    return next;
  }

  /**
   * Registers one queued publication per key (see {@link queued}) until `release` is called (once). A publication
   * (`held` false) takes the place of the {@link hold} registration of its document at the same seq, if any: from
   * then on it lasts as long as the publication, not as long as its holder's hold (which may outlive it).
   */
  private enqueue(keys: string[], seqs: number[], held: boolean): { mine: Set<Queued>; release: () => void } {
    const mine = new Set<Queued>();
    const entries = keys.map((k, i) => {
      const q: Queued = { seq: seqs[i] ?? Number.NEGATIVE_INFINITY, held };
      mine.add(q);
      let set = this.queued.get(k);
      if (!set) {
        set = new Set();
        this.queued.set(k, set);
      }
      if (!held)
        for (const h of set)
          if (h.held && h.seq === q.seq) {
            set.delete(h);
            break;
          }
      set.add(q);
      return [k, q] as const;
    });
    let released = false;
    return {
      mine,
      release: () => {
        if (released) return;
        released = true;
        for (const [k, q] of entries) {
          const set = this.queued.get(k);
          set?.delete(q);
          if (set && !set.size) this.queued.delete(k);
        }
      },
    };
  }

  private failed(err: unknown, model: OutboxModel, ids: unknown[]): void {
    this.opts.logger.warn(
      { err: (err as Error).message, collection: model.collection.name, count: ids.length },
      'eager publish failed; the relay retries it',
    );
    for (const id of ids) this.opts.relay.later(model, id);
  }
}

/**
 * A publication of one document queued in this process: the `outboxSeq` of the outbox it sends, and whether it is
 * registered by a {@link EagerPublisher.hold} (its publication not yet handed over) or by the publication itself.
 */
type Queued = { seq: number; held: boolean };

/** Resolves when `work` does or after `ms`, whichever is first. */
async function within(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work,
    new Promise<void>((r) => {
      timer = setTimeout(r, ms);
    }),
  ]);
  clearTimeout(timer);
}

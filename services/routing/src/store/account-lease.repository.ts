import { isDuplicateKey } from './errors';
import type { Models } from './models';

// biome-ignore lint/suspicious/noExplicitAny: lean documents
type Doc = Record<string, any>;

/** "Never" for `wakeAt`: nothing time-driven is pending for the account. */
export const never = Number.MAX_SAFE_INTEGER;

/**
 * Per-account engine documents: `wakeAt` says when routing must next run for the account (0 after a
 * change, or the next deadline), and a lease (`owner`, `leaseUntil`) says which instance runs a pass (held
 * during a pass and the short gap after it).
 * Every operation is an `_id` lookup or a conditional update by `_id` (cheap on any store).
 */
export class AccountLeaseRepository {
  constructor(private readonly models: Models) {}

  /**
   * Asks for a routing pass for the account as soon as possible: one upsert by `_id`, whether the wake was
   * pending, due already (a burst of Invokes between two passes) or the document is new (created due). A
   * conditional update first and an upsert second cost two round trips in the already-due case, the common
   * one under load.
   */
  async wake(accountId: string): Promise<void> {
    const write = () =>
      this.models.accounts.updateOne(
        { _id: accountId },
        { $set: { wakeAt: 0 }, $setOnInsert: { owner: null, leaseUntil: 0 } },
        { upsert: true },
      );
    try {
      await write();
    } catch (err) {
      // Two first wakes raced to create the document: it exists now, so the update matches.
      if (!isDuplicateKey(err)) throw err;
      await write();
    }
  }

  /** Accounts with a stored wake (due or later): the engine's slow safety sweep arms a timer for each. */
  async pending(limit: number): Promise<{ accountId: string; wakeAt: number }[]> {
    const docs = await this.models.accounts
      .find({ wakeAt: { $lt: never } }, { _id: 1, wakeAt: 1 })
      .limit(limit)
      .lean<Doc[]>();
    return docs.map((d) => ({ accountId: d._id as string, wakeAt: d.wakeAt as number }));
  }

  /** The engine document of one account (an `_id` lookup). */
  async state(accountId: string): Promise<{ wakeAt: number; owner: string | null; leaseUntil: number } | null> {
    const d = await this.models.accounts.findOne({ _id: accountId }).lean<Doc>();
    return d ? { wakeAt: d.wakeAt ?? never, owner: d.owner ?? null, leaseUntil: d.leaseUntil ?? 0 } : null;
  }

  /**
   * Starts a pass: takes the account's lease in one conditional update, only if a pass is due (`wakeAt`
   * reached) and the lease is free (expired) or already ours; `wakeAt` becomes `mark` (the lease end, so a
   * pass that dies is retried), and a wake during the pass sets it back to 0, which {@link settle} then sees.
   * Returns null if not taken, else the owner before: this instance itself means no other instance ran a
   * pass of the account since this one's last (every pass start writes its owner), so its memory of the
   * account holds (see AccountMemory).
   */
  async begin(
    accountId: string,
    owner: string,
    now: number,
    leaseMs: number,
    mark: number,
  ): Promise<{ previousOwner: string | null } | null> {
    return this.take({ _id: accountId, wakeAt: { $lte: now } }, owner, now, leaseMs, { wakeAt: mark });
  }

  /**
   * Renews the lease of a pass in progress: only if it is still ours or free (one conditional update).
   * Returns null if another instance holds it, else the owner before (another one: it ran a pass meanwhile).
   */
  async renew(
    accountId: string,
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<{ previousOwner: string | null } | null> {
    return this.take({ _id: accountId }, owner, now, leaseMs);
  }

  /** Takes the lease where `filter` matches and it is free (expired) or already ours; the owner before, or null. */
  private async take(
    filter: Record<string, unknown>,
    owner: string,
    now: number,
    leaseMs: number,
    set: Record<string, unknown> = {},
  ): Promise<{ previousOwner: string | null } | null> {
    const before = await this.models.accounts
      .findOneAndUpdate(
        { ...filter, $or: [{ leaseUntil: { $lt: now } }, { owner }] },
        { $set: { owner, leaseUntil: now + leaseMs, ...set } },
        // No projection: FerretDB 1.24 does not implement findAndModify `fields`.
        { new: false },
      )
      .lean<Doc>();
    return before ? { previousOwner: before.owner ?? null } : null;
  }

  /**
   * Ends a pass: records the next wake and shortens the lease to `holdUntil` (the end of the gap between two
   * passes of the account, so passes stay spaced across instances too), unless someone woke the account
   * during the pass (or took the lease over). Returns whether it settled; if not, the caller runs another pass.
   */
  async settle(
    accountId: string,
    owner: string,
    mark: number,
    nextWakeAt: number,
    holdUntil: number,
  ): Promise<boolean> {
    const res = await this.models.accounts.updateOne(
      { _id: accountId, owner, wakeAt: mark },
      { $set: { wakeAt: nextWakeAt, leaseUntil: holdUntil } },
    );
    return res.matchedCount === 1;
  }

  /** Gives up every lease this instance holds (graceful shutdown: another instance takes over at once). */
  async releaseAll(owner: string): Promise<void> {
    await this.models.accounts.updateMany({ owner }, { $set: { leaseUntil: 0, owner: null, wakeAt: 0 } });
  }

  /** The current lease holder of an account (tests, diagnostics). */
  async holder(accountId: string): Promise<{ owner: string | null; leaseUntil: number } | null> {
    const d = await this.models.accounts.findOne({ _id: accountId }).lean<Doc>();
    return d ? { owner: d.owner ?? null, leaseUntil: d.leaseUntil ?? 0 } : null;
  }
}

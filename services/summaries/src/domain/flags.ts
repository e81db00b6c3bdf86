/** An account's agent-summaries feature flag as of `at` (the flag event's occurredAt, epoch ms). */
export interface AccountFlag {
  accountId: string;
  enabled: boolean;
  at: number;
}

/**
 * The accounts' agent-summaries flags, from `account.feature-flags-changed` events: the latest by
 * occurredAt wins, so a redelivered older event cannot undo a newer one. Unknown accounts are disabled.
 */
export class AccountFlags {
  private readonly flags = new Map<string, AccountFlag>();
  private dirty = new Map<string, AccountFlag>();

  /** Applies a flag change; returns whether it changed the account's flag record. */
  apply(f: AccountFlag): boolean {
    const current = this.flags.get(f.accountId);
    if (current && current.at > f.at) return false;
    this.flags.set(f.accountId, f);
    this.dirty.set(f.accountId, f);
    return true;
  }

  /** Loads a stored flag (at start). */
  load(f: AccountFlag): void {
    this.flags.set(f.accountId, f);
  }

  enabled(accountId: string): boolean {
    return this.flags.get(accountId)?.enabled ?? false;
  }

  /** Puts flags back after a failed write (unless a newer change came meanwhile). */
  restoreDirty(list: AccountFlag[]): void {
    for (const f of list) if (!this.dirty.has(f.accountId)) this.dirty.set(f.accountId, f);
  }

  /** The flags changed since the last call. */
  takeDirty(): AccountFlag[] {
    const out = [...this.dirty.values()];
    this.dirty = new Map();
    return out;
  }
}

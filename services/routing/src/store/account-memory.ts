import type { AgentRecord, InteractionRecord } from '../domain/types';

/** A live interaction as the engine keeps it, with when it last changed (for repairs). */
export interface LiveInteraction {
  rec: InteractionRecord;
  updatedAt: number;
  /** Decisions in its trace so far. */
  decisionCount: number;
}

/** What the lease owner keeps of one account between routing passes. */
export interface AccountState {
  interactions: Map<string, LiveInteraction>;
  agents: Map<string, AgentRecord>;
  /** When the full read this state started from was taken. */
  loadedAt: number;
  /** When the next full read is due (the safety net for writes the change flag cannot show). */
  reloadAt: number;
  /** Last pass that used it (idle accounts are dropped). */
  usedAt: number;
}

/** Whether `next` is a later state of the interaction than `cur` (version first; the trace count at equal versions). */
function newer(next: LiveInteraction, cur: LiveInteraction | undefined): boolean {
  if (!cur) return true;
  if (next.rec.version !== cur.rec.version) return next.rec.version > cur.rec.version;
  return next.decisionCount > cur.decisionCount;
}

/**
 * The routing state of the accounts whose lease this instance holds (ARCHITECTURE §7: state in memory at
 * its owner): live interactions and agents, loaded once by the engine when it takes an account's lease and
 * kept current by every successful write or read of this instance (the repositories note what the store
 * answered, merged by version, so an older answer never replaces a newer one). Writes of other instances
 * reach it through the change flag the engine reads at the start of each pass (see the repositories'
 * `changed`). Only accounts present here are kept: notes for other accounts are ignored.
 */
export class AccountMemory {
  private readonly accounts = new Map<string, AccountState>();

  /** The account's state, if this instance holds it. */
  get(accountId: string): AccountState | undefined {
    return this.accounts.get(accountId);
  }

  /** Replaces the account's state with a full read taken at `loadedAt`. */
  load(
    accountId: string,
    interactions: LiveInteraction[],
    agents: AgentRecord[],
    loadedAt: number,
    reloadAt: number,
  ): AccountState {
    const state: AccountState = {
      interactions: new Map(interactions.map((i) => [i.rec.interactionId, i])),
      agents: new Map(agents.map((a) => [a.agentId, a])),
      loadedAt,
      reloadAt,
      usedAt: loadedAt,
    };
    this.accounts.set(accountId, state);
    return state;
  }

  /** Forgets the account (lease lost or given up, a pass failed, or idle). */
  drop(accountId: string): void {
    this.accounts.delete(accountId);
  }

  /** Forgets every account not used by a pass since `before`. */
  dropIdle(before: number): void {
    for (const [accountId, state] of this.accounts) if (state.usedAt < before) this.accounts.delete(accountId);
  }

  clear(): void {
    this.accounts.clear();
  }

  /** Accounts held (tests, diagnostics). */
  get size(): number {
    return this.accounts.size;
  }

  /** Notes an interaction as the store answered it (a write's result or a read), if it is newer. */
  noteInteraction(accountId: string, item: LiveInteraction): void {
    const state = this.accounts.get(accountId);
    if (!state) return;
    if (newer(item, state.interactions.get(item.rec.interactionId)))
      state.interactions.set(item.rec.interactionId, item);
  }

  /** Notes that an interaction left the live collection (archived). */
  forgetInteraction(accountId: string, interactionId: string): void {
    this.accounts.get(accountId)?.interactions.delete(interactionId);
  }

  /** Notes an agent as the store answered it, if it is newer. */
  noteAgent(accountId: string, agent: AgentRecord): void {
    const state = this.accounts.get(accountId);
    if (!state) return;
    const cur = state.agents.get(agent.agentId);
    if (!cur || agent.version > cur.version) state.agents.set(agent.agentId, agent);
  }

  /** Notes that an agent was deleted. */
  forgetAgent(accountId: string, agentId: string): void {
    this.accounts.get(accountId)?.agents.delete(agentId);
  }
}

import { type CloudEvent, outboxEntries, stagedFields, withEvents } from '@cc/bus';
import { forAccount } from '@cc/store';
import { nameKey } from '../domain/names';
import type { AgentRecord } from '../domain/types';
import type { Staged } from '../events/publisher';
import { agentActivityTopic } from '../events/topics';
import type { AccountMemory } from './account-memory';
import { clearFlags, flagged } from './change-flag';
import { isDuplicateKey } from './errors';
import type { Models } from './models';

// biome-ignore lint/suspicious/noExplicitAny: lean documents
type Doc = Record<string, any>;

function toRecord(doc: Doc): AgentRecord {
  const { _id, outbox: _o, outboxSeq: _s, outboxPending: _p, usernameKey: _k, workCount: _w, dirty: _x, ...rest } = doc;
  return { ...(rest as Omit<AgentRecord, 'agentId'>), agentId: _id as string };
}

const mutable = [
  'username',
  'displayName',
  'skills',
  'capacity',
  'presence',
  'presenceReason',
  'presenceSince',
  'everLoggedIn',
  'idleSince',
  'missedOffers',
  'work',
  'workloadSince',
  'activitySeq',
  'version',
] as const;

/** Agents of one account at a time: profile, presence and work list with the agent-activity outbox. */
export class AgentRepository {
  constructor(
    private readonly models: Models,
    /** The lease owner's account state: every write and full read here is noted in it. */
    private readonly memory?: AccountMemory,
  ) {}

  /** The model the outbox relay and eager publisher address by `_id` (below the tenancy guard, via `crossAccount`). */
  get outboxModel() {
    return this.models.agents;
  }

  /** Creates an agent; false when the username is taken (case-insensitively). */
  async insert(agent: AgentRecord, events: CloudEvent[] = []): Promise<boolean> {
    const { agentId, ...rest } = agent;
    try {
      await forAccount(this.models.agents, agent.accountId).insertOne({
        _id: agentId,
        ...rest,
        usernameKey: nameKey(agent.username),
        workCount: agent.work.length,
        dirty: true,
        ...stagedFields(outboxEntries(agentActivityTopic, events)),
      } as never);
      this.memory?.noteAgent(agent.accountId, agent);
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** One agent of the account, or null. */
  async get(accountId: string, agentId: string): Promise<AgentRecord | null> {
    const doc = await this.models.agents
      .findOne({ accountId, _id: agentId }, { outbox: 0, outboxPending: 0 })
      .lean<Doc>();
    if (!doc) return null;
    const agent = toRecord(doc);
    this.memory?.noteAgent(accountId, agent);
    return agent;
  }

  /** The agent with this username (case-insensitive), or null. */
  async byUsername(accountId: string, username: string): Promise<AgentRecord | null> {
    const doc = await this.models.agents
      .findOne({ accountId, usernameKey: nameKey(username) }, { outbox: 0, outboxPending: 0 })
      .lean<Doc>();
    return doc ? toRecord(doc) : null;
  }

  /**
   * Every agent of the account (routing considers them all): the lease owner's full read; `dirty` lists
   * those carrying the change flag at their version.
   */
  async all(accountId: string): Promise<{ items: AgentRecord[]; dirty: Map<string, number> }> {
    const docs = await this.models.agents.find({ accountId }, { outbox: 0, outboxPending: 0 }).lean<Doc[]>();
    return { items: docs.map(toRecord), dirty: flagged(docs) };
  }

  /** The agents changed by writes the lease owner has not seen (as `InteractionRepository.changed`). */
  async changed(accountId: string): Promise<{ items: AgentRecord[]; dirty: Map<string, number> }> {
    const docs = await this.models.agents
      .find({ accountId, dirty: true }, { outbox: 0, outboxPending: 0 })
      .lean<Doc[]>();
    return { items: docs.map(toRecord), dirty: flagged(docs) };
  }

  /** Clears the change flag of agents merged at these versions (a later write keeps its flag). */
  seen(accountId: string, versions: Map<string, number>): Promise<void> {
    return clearFlags(this.models.agents, accountId, versions);
  }

  /** Agents holding work (for the reconciliation sweep). */
  async withWork(accountId: string): Promise<string[]> {
    const docs = await this.models.agents.find({ accountId, workCount: { $gt: 0 } }, { _id: 1 }).lean<Doc[]>();
    return docs.map((d) => d._id as string);
  }

  /** A page of agents ordered by username. */
  async page(accountId: string, skip: number, limit: number): Promise<{ items: AgentRecord[]; total: number }> {
    const [docs, total] = await Promise.all([
      this.models.agents
        .find({ accountId }, { outbox: 0, outboxPending: 0 })
        .sort({ usernameKey: 1 })
        .skip(skip)
        .limit(limit)
        .lean<Doc[]>(),
      this.models.agents.countDocuments({ accountId }),
    ]);
    return { items: docs.map(toRecord), total };
  }

  /**
   * Writes the next state and its events in one conditional update (optimistic concurrency on
   * `version`); returns what is pending in the outbox, or null when another writer changed the agent
   * first. Throws on a username clash.
   */
  async save(
    next: AgentRecord,
    expectedVersion: number,
    events: CloudEvent[],
    opts: { byOwner?: boolean } = {},
  ): Promise<Staged | null> {
    // The change flag: set by every write but the lease owner's own routing writes (see `changed`).
    const set: Record<string, unknown> = {
      usernameKey: nameKey(next.username),
      workCount: next.work.length,
      dirty: !opts.byOwner,
    };
    for (const key of mutable) set[key] = next[key];
    const update = events.length ? withEvents({ $set: set }, agentActivityTopic, events) : { $set: set };
    const doc = await this.models.agents
      .findOneAndUpdate({ accountId: next.accountId, _id: next.agentId, version: expectedVersion }, update, {
        // No projection: FerretDB 1.24 does not implement findAndModify `fields`.
        new: true,
      })
      .lean<Doc>();
    if (!doc) return null;
    this.memory?.noteAgent(next.accountId, toRecord(doc));
    return { entries: doc.outbox ?? [], seq: doc.outboxSeq ?? 0 };
  }

  /** Deletes a logged-out agent holding no work; false if it changed meanwhile. */
  async delete(accountId: string, agentId: string, version: number): Promise<boolean> {
    const res = await this.models.agents.deleteOne({ accountId, _id: agentId, version, presence: 'LoggedOut' });
    if (res.deletedCount === 1) this.memory?.forgetAgent(accountId, agentId);
    return res.deletedCount === 1;
  }

  /** Whether any agent of the account holds the skill (case-insensitive). */
  async anyWithSkill(accountId: string, skill: string): Promise<boolean> {
    const docs = await this.models.agents.find({ accountId }, { skills: 1 }).lean<Doc[]>();
    return docs.some((d) => (d.skills as { name: string }[]).some((s) => nameKey(s.name) === nameKey(skill)));
  }
}

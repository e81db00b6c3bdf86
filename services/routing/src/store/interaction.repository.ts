import { randomUUID } from 'node:crypto';
import { type CloudEvent, type OutboxEntry, stagedFields, withEvents } from '@cc/bus';
import { forAccount, forAccounts } from '@cc/store';
import { releaseKey } from '../domain/interaction';
import type { Decision, InteractionRecord } from '../domain/types';
import type { Staged } from '../events/publisher';
import { interactionTopic } from '../events/topics';
import type { AccountMemory, LiveInteraction } from './account-memory';
import { bulkLimit, clearFlags, flagged } from './change-flag';
import { duplicateIndexes, isDuplicateKey } from './errors';
import { GroupCommit } from './group-commit';
import type { Models } from './models';

// biome-ignore lint/suspicious/noExplicitAny: lean documents
type Doc = Record<string, any>;

const mutable = [
  'route',
  'plan',
  'dataSources',
  'skills',
  'personalQueue',
  'recording',
  'state',
  'queuedAt',
  'queue',
  'offer',
  'agent',
  'legs',
  'offerAttempts',
  'unexpectedOffers',
  'lastDecisionSig',
  'endedAt',
  'liveKey',
  'syncAgents',
  'seq',
  'version',
] as const;

function toRecord(doc: Doc): InteractionRecord {
  const {
    _id,
    outbox: _o,
    outboxSeq: _s,
    outboxPending: _p,
    updatedAt: _u,
    decisionCount: _c,
    decisions: _d,
    dirty: _x,
    ...rest
  } = doc;
  return {
    ...(rest as Omit<InteractionRecord, 'interactionId' | 'decisions'>),
    decisions: [],
    interactionId: _id as string,
  };
}

export type { LiveInteraction } from './account-memory';

function toLive(doc: Doc): LiveInteraction {
  return { rec: toRecord(doc), updatedAt: doc.updatedAt ?? 0, decisionCount: doc.decisionCount ?? 0 };
}

/**
 * Interactions of one account at a time: the aggregate and its outbox in one document.
 *
 * The portable store answers only `_id` equality from an index (FerretDB 1.x scans the collection for
 * any other filter, `$in` on `_id` included), so hot paths read by `_id`, and the collection is kept to
 * live interactions: ended ones move to `interaction_archive` once their events are out.
 */
export class InteractionRepository {
  /** Inserts of concurrent Invocations share bulk writes (group commit); true for each duplicate. */
  private readonly inserts: GroupCommit<Doc, boolean>;
  private readonly keyClaims: GroupCommit<{ accountId: string; key: string; interactionId: string; at: number }, null>;
  /** First claims of release keys (inserts): true for each refused because a claim exists. */
  private readonly keyInserts: GroupCommit<Doc, boolean>;
  /** Decisions carried out by concurrent writes (a pass's offers side by side) share one insert. */
  private readonly decisionInserts: GroupCommit<Doc, null>;

  constructor(
    private readonly models: Models,
    /** The lease owner's account state: every write and full read here is noted in it. */
    private readonly memory?: AccountMemory,
  ) {
    this.inserts = new GroupCommit(async (docs) => {
      const dup = new Set<number>();
      try {
        await forAccounts(this.models.interactions).insertMany(docs as never[], { ordered: false });
      } catch (err) {
        for (const i of duplicateIndexes(err)) dup.add(i);
      }
      return docs.map((_, i) => dup.has(i));
    });
    this.keyInserts = new GroupCommit(async (docs) => {
      const dup = new Set<number>();
      try {
        await forAccounts(this.models.externalIds).insertMany(docs as never[], { ordered: false });
      } catch (err) {
        for (const i of duplicateIndexes(err)) dup.add(i);
      }
      return docs.map((_, i) => dup.has(i));
    });
    this.decisionInserts = new GroupCommit(async (docs) => {
      await forAccounts(this.models.decisions).insertMany(docs as never[], { ordered: false });
      return docs.map(() => null);
    });
    this.keyClaims = new GroupCommit(async (claims) => {
      await this.models.externalIds.bulkWrite(
        claims.map((c) => ({
          updateOne: {
            filter: { accountId: c.accountId, _id: `${c.accountId}:${c.key}` },
            update: { $set: { interactionId: c.interactionId, createdAt: c.at } },
            upsert: true,
          },
        })),
        { ordered: false },
      );
      return claims.map(() => null);
    });
  }

  /** The model the outbox relay and eager publisher address by `_id` (below the tenancy guard, via `crossAccount`). */
  get outboxModel() {
    return this.models.interactions;
  }

  /**
   * Inserts new interactions with their staged events. Returns the ids refused as duplicates: an id
   * that already exists (a resumed Invoke) or a live externalId taken meanwhile by another request.
   */
  async insertMany(items: { rec: InteractionRecord; outbox: OutboxEntry[] }[]): Promise<Set<string>> {
    // (The inserted outbox is exactly the entries given: callers publish them as staged, seq = count.)
    if (!items.length) return new Set();
    const now = Date.now();
    const docs = items.map(({ rec, outbox }) => {
      const { interactionId, ...rest } = rec;
      return {
        _id: interactionId,
        ...rest,
        updatedAt: now,
        decisionCount: 0,
        // A write the account's lease owner has not seen yet (see `changed`).
        dirty: true,
        ...stagedFields(outbox),
      };
    });
    const refused = await this.inserts.add(docs);
    docs.forEach((d, i) => {
      if (!refused[i]) this.memory?.noteInteraction(d.accountId, toLive(d));
    });
    return new Set(docs.filter((_, i) => refused[i]).map((d) => d._id));
  }

  /** One live interaction of the account (without its trace), or null. */
  async get(accountId: string, interactionId: string): Promise<InteractionRecord | null> {
    const doc = await this.models.interactions
      .findOne({ accountId, _id: interactionId }, { outbox: 0, outboxPending: 0 })
      .lean<Doc>();
    if (!doc) return null;
    this.memory?.noteInteraction(accountId, toLive(doc));
    return toRecord(doc);
  }

  /** One interaction with its routing trace (decisions in the order taken), live or archived, or null. */
  async getWithTrace(accountId: string, interactionId: string): Promise<InteractionRecord | null> {
    const doc =
      (await this.models.interactions
        .findOne({ accountId, _id: interactionId }, { outbox: 0, outboxPending: 0 })
        .lean<Doc>()) ?? (await this.models.archive.findOne({ accountId, _id: interactionId }).lean<Doc>());
    if (!doc) return null;
    const decisions = await this.models.decisions
      .find({ accountId, interactionId })
      .sort({ at: 1, _id: 1 })
      .lean<Doc[]>();
    return { ...toRecord(doc), decisions: decisions.map((d) => d.decision as Decision) };
  }

  /** Which of these interactions exist, live or archived (`_id` lookups of `_id` only, in parallel). */
  async existing(accountId: string, ids: string[]): Promise<Set<string>> {
    const found = await Promise.all(
      [...new Set(ids)].map(async (id) => {
        const doc =
          (await this.models.interactions.findOne({ accountId, _id: id }, { _id: 1 }).lean<Doc>()) ??
          (await this.models.archive.findOne({ accountId, _id: id }, { _id: 1 }).lean<Doc>());
        return doc ? id : null;
      }),
    );
    return new Set(found.filter((id): id is string => id !== null));
  }

  /** Several interactions by id (one `_id` lookup each, in parallel). */
  async byIds(accountId: string, ids: string[]): Promise<InteractionRecord[]> {
    const recs = await Promise.all([...new Set(ids)].map((id) => this.get(accountId, id)));
    return recs.filter((r): r is InteractionRecord => r !== null);
  }

  /**
   * The live interactions under release keys (provider + externalId): key → interaction id. Read by
   * `_id` from the externalId claims, each checked against its interaction (a claim left behind by a
   * crash names an interaction that is gone, ended or holds another key).
   */
  async liveKeys(accountId: string, keys: string[]): Promise<Map<string, string>> {
    const found = await Promise.all(
      [...new Set(keys)].map(async (key) => {
        const claim = await this.models.externalIds.findOne({ accountId, _id: `${accountId}:${key}` }).lean<Doc>();
        if (!claim) return null;
        const doc = await this.models.interactions
          .findOne({ accountId, _id: claim.interactionId }, { liveKey: 1 })
          .lean<Doc>();
        return doc?.liveKey === key ? ([key, doc._id as string] as const) : null;
      }),
    );
    return new Map(found.filter((f): f is readonly [string, string] => f !== null));
  }

  /**
   * Claims the release keys of dispatches about to be processed, before anything is processed: one insert
   * per key (shared with concurrent Invocations), so a key nobody holds costs no read. Only refused keys
   * are read back: a claim naming the same interaction (a resumed dispatch) is ours; one naming a live
   * interaction under that key is reported in `live`; any other is left behind by an ended interaction or
   * a crash (stale), and `claimKeys` takes it over at insert time. `inserted`: key → interaction id of the
   * claims this call wrote (withdrawn with `withdrawKeys` if the Invocation is refused or does not use them).
   */
  async claimNewKeys(
    accountId: string,
    claims: { key: string; interactionId: string }[],
  ): Promise<{ inserted: Map<string, string>; live: Map<string, string> }> {
    const inserted = new Map<string, string>();
    const live = new Map<string, string>();
    const byKey = new Map<string, { key: string; interactionId: string }>();
    for (const c of claims) if (!byKey.has(c.key)) byKey.set(c.key, c);
    const unique = [...byKey.values()];
    if (!unique.length) return { inserted, live };
    const at = Date.now();
    const refused = await this.keyInserts.add(
      unique.map((c) => ({ _id: `${accountId}:${c.key}`, accountId, interactionId: c.interactionId, createdAt: at })),
    );
    const reread: { key: string; interactionId: string }[] = [];
    unique.forEach((c, i) => {
      if (refused[i]) reread.push(c);
      else inserted.set(c.key, c.interactionId);
    });
    await Promise.all(
      reread.map(async ({ key, interactionId }) => {
        const claim = await this.models.externalIds.findOne({ accountId, _id: `${accountId}:${key}` }).lean<Doc>();
        if (!claim || claim.interactionId === interactionId) return;
        const doc = await this.models.interactions
          .findOne({ accountId, _id: claim.interactionId }, { liveKey: 1 })
          .lean<Doc>();
        if (doc?.liveKey === key) live.set(key, doc._id as string);
      }),
    );
    return { inserted, live };
  }

  /** Withdraws key claims `claimNewKeys` wrote for an Invocation refused before processing (one bulk write). */
  async withdrawKeys(accountId: string, claims: { key: string; interactionId: string }[]): Promise<void> {
    if (!claims.length) return;
    await this.models.externalIds.bulkWrite(
      claims.map((c) => ({
        deleteOne: { filter: { accountId, _id: `${accountId}:${c.key}`, interactionId: c.interactionId } },
      })),
      { ordered: false },
    );
  }

  /** Records the externalId claims of interactions about to be inserted (before the insert). */
  async claimKeys(accountId: string, claims: { key: string; interactionId: string }[]): Promise<void> {
    if (!claims.length) return;
    const at = Date.now();
    await this.keyClaims.add(claims.map((c) => ({ accountId, ...c, at })));
  }

  /**
   * After inserts refused as duplicates: which of them lost their liveKey to another interaction (a
   * concurrent request with the same externalId won the unique index). `claimKeys` had pointed the
   * externalId claim at the loser, which was never inserted; the claim is pointed back at the holder (only
   * while it still names the loser), so the live interaction stays releasable by its externalId. A refused
   * id that exists (live or archived) is a resumed Invocation, not a loss. Runs only on the refusal path.
   */
  async settleRefused(accountId: string, refused: { key: string; interactionId: string }[]): Promise<Set<string>> {
    const lost = new Set<string>();
    for (const { key, interactionId } of refused) {
      const mine =
        (await this.models.interactions.findOne({ accountId, _id: interactionId }, { _id: 1 }).lean<Doc>()) ??
        (await this.models.archive.findOne({ accountId, _id: interactionId }, { _id: 1 }).lean<Doc>());
      if (mine) continue;
      lost.add(interactionId);
      const claimId = `${accountId}:${key}`;
      const holder = await this.models.interactions.findOne({ accountId, liveKey: key }, { _id: 1 }).lean<Doc>();
      if (holder)
        await this.models.externalIds.updateOne(
          { accountId, _id: claimId, interactionId },
          { $set: { interactionId: holder._id as string } },
        );
      else await this.models.externalIds.deleteOne({ accountId, _id: claimId, interactionId });
    }
    return lost;
  }

  /**
   * Every interaction of the account still in this collection: the lease owner's full read (when it takes
   * the lease, or as a safety net); `dirty` lists those carrying the change flag at their version.
   */
  async live(accountId: string): Promise<{ items: LiveInteraction[]; dirty: Map<string, number> }> {
    const docs = await this.models.interactions.find({ accountId }, { outbox: 0, outboxPending: 0 }).lean<Doc[]>();
    return { items: docs.map(toLive), dirty: flagged(docs) };
  }

  /**
   * The interactions changed by writes the lease owner has not seen (every write but the owner's own
   * routing writes sets the change flag `dirty`): an equality on an indexed pair, so a pass reads what
   * others changed since its last one, not the account's whole live set. The caller merges them by version,
   * then clears the flags with {@link seen}.
   */
  async changed(accountId: string): Promise<{ items: LiveInteraction[]; dirty: Map<string, number> }> {
    const docs = await this.models.interactions
      .find({ accountId, dirty: true }, { outbox: 0, outboxPending: 0 })
      .lean<Doc[]>();
    return { items: docs.map(toLive), dirty: flagged(docs) };
  }

  /** Clears the change flag of interactions merged at these versions (a later write keeps its flag). */
  seen(accountId: string, versions: Map<string, number>): Promise<void> {
    return clearFlags(this.models.interactions, accountId, versions);
  }

  /**
   * Writes the next state and its events in one conditional single-document update (optimistic
   * concurrency on `version`); returns what is pending in the outbox, or null when another writer
   * changed the interaction first.
   */
  async save(
    next: InteractionRecord,
    expectedVersion: number,
    events: CloudEvent[],
    decision?: Decision,
    opts: { byOwner?: boolean } = {},
  ): Promise<Staged | null> {
    // The change flag: set by every write but the lease owner's own routing writes (`byOwner`), which it
    // makes from its memory and notes there (see `changed`).
    const set: Record<string, unknown> = { updatedAt: Date.now(), dirty: !opts.byOwner };
    for (const key of mutable) set[key] = next[key];
    const base = decision ? { $set: set, $inc: { decisionCount: 1 } } : { $set: set };
    const update = events.length ? withEvents(base, interactionTopic, events) : base;
    const doc = await this.models.interactions
      .findOneAndUpdate({ accountId: next.accountId, _id: next.interactionId, version: expectedVersion }, update, {
        // No projection: FerretDB 1.24 does not implement findAndModify `fields`.
        new: true,
      })
      .lean<Doc>();
    if (!doc) return null;
    this.memory?.noteInteraction(next.accountId, toLive(doc));
    // The decision this change carried out joins the trace once the change is stored (a crash in between
    // loses a trace entry, never routing state); the offers a pass writes side by side share one insert.
    if (decision)
      await this.decisionInserts.add([
        { _id: randomUUID(), accountId: next.accountId, interactionId: next.interactionId, at: decision.at, decision },
      ]);
    return { entries: doc.outbox ?? [], seq: doc.outboxSeq ?? 0 };
  }

  private async insertDecisions(
    accountId: string,
    items: { interactionId: string; decision: Decision }[],
  ): Promise<void> {
    if (!items.length) return;
    await forAccount(this.models.decisions, accountId).insertMany(
      items.map(({ interactionId, decision }) => ({
        _id: randomUUID(),
        accountId,
        interactionId,
        at: decision.at,
        decision,
      })) as never[],
      { ordered: false },
    );
  }

  /**
   * Records routing decisions that assigned nobody (a pass may hold hundreds): the interactions' trace
   * signatures in one bulk write, then the decisions of those still queued with room in their trace.
   * Returns the ids whose signature write was sent (which also clears their change flag at that version).
   */
  async recordDecisions(
    accountId: string,
    items: { interactionId: string; version: number; decision: Decision; signature: string; count: number }[],
    maxDecisions: number,
  ): Promise<string[]> {
    const kept = items.filter((i) => i.count < maxDecisions);
    // In bulks of at most 50 operations: a larger bulk stalls the portable store for every other client.
    for (let at = 0; at < kept.length; at += bulkLimit) {
      const part = kept.slice(at, at + bulkLimit);
      await this.models.interactions.bulkWrite(
        part.map(({ interactionId, version, signature }) => ({
          updateOne: {
            // At the version decided on (still queued then): the owner's own write, so it also clears the
            // change flag of a version it has merged.
            filter: { accountId, _id: interactionId, version },
            update: { $set: { lastDecisionSig: signature, dirty: false }, $inc: { decisionCount: 1 } },
          },
        })),
        { ordered: false },
      );
      // Noted as written: one that changed meanwhile has a later version, which a read or `changed` brings.
      const held = this.memory?.get(accountId);
      for (const { interactionId, version, signature } of part) {
        const cur = held?.interactions.get(interactionId);
        if (cur && cur.rec.version === version)
          held?.interactions.set(interactionId, {
            ...cur,
            rec: { ...cur.rec, lastDecisionSig: signature },
            decisionCount: cur.decisionCount + 1,
          });
      }
      await this.insertDecisions(accountId, part);
    }
    return kept.map((i) => i.interactionId);
  }

  /**
   * Moves an ended interaction to the archive once its events are published (the caller checked its
   * agents are in step): copy first (idempotent), then delete the live document only if it did not
   * change meanwhile.
   */
  async archive(accountId: string, interactionId: string): Promise<boolean> {
    const doc = await this.models.interactions.findOne({ accountId, _id: interactionId }).lean<Doc>();
    if (!doc) this.memory?.forgetInteraction(accountId, interactionId);
    else this.memory?.noteInteraction(accountId, toLive(doc));
    if (!doc || doc.state !== 'ended' || (doc.outbox?.length ?? 0) > 0) return false;
    const { outbox: _o, outboxSeq: _s, outboxPending: _p, ...rest } = doc;
    try {
      await forAccount(this.models.archive, accountId).insertOne(rest as never);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const res = await this.models.interactions.deleteOne({
      accountId,
      _id: interactionId,
      version: doc.version,
      outboxSeq: doc.outboxSeq,
    });
    if (doc.externalId !== null && doc.externalId !== undefined) {
      const key = releaseKey(doc.provider ?? null, doc.externalId);
      await this.models.externalIds.deleteOne({ accountId, _id: `${accountId}:${key}`, interactionId });
    }
    if (res.deletedCount === 1) this.memory?.forgetInteraction(accountId, interactionId);
    return res.deletedCount === 1;
  }

  /** Legs and identity of the given interactions (for agent reconciliation). */
  async legsOf(
    accountId: string,
    ids: string[],
  ): Promise<Pick<InteractionRecord, 'interactionId' | 'type' | 'medium' | 'legs'>[]> {
    const docs = await Promise.all(
      [...new Set(ids)].map((id) =>
        this.models.interactions.findOne({ accountId, _id: id }, { _id: 1, type: 1, medium: 1, legs: 1 }).lean<Doc>(),
      ),
    );
    return docs
      .filter((d): d is Doc => d !== null)
      .map((d) => ({ interactionId: d._id as string, type: d.type, medium: d.medium, legs: d.legs ?? [] }));
  }
}

import { forAccounts } from '@cc/store';
import type { StoredOutcome } from '../domain/invocation';
import { duplicateIndexes } from './errors';
import { GroupCommit } from './group-commit';
import type { Models } from './models';

// biome-ignore lint/suspicious/noExplicitAny: lean documents
type Doc = Record<string, any>;

const idOf = (accountId: string, requestId: string) => `${accountId}:${requestId}`;

function toOutcome(d: Doc): StoredOutcome {
  return {
    requestId: d.requestId,
    hash: d.hash,
    status: d.status,
    action: d.action,
    externalId: d.externalId ?? null,
    interactionId: d.interactionId ?? null,
    outcome: d.outcome ?? null,
  };
}

/**
 * requestId dedupe records per account: claimed before processing, completed with the outcome. Claims
 * and completions of concurrent Invocations share bulk writes (group commit).
 */
export class RequestLogRepository {
  /** Inserts claims; true for each refused as a duplicate. */
  private readonly claims: GroupCommit<Doc, boolean>;
  private readonly completions: GroupCommit<{ accountId: string; record: StoredOutcome }, null>;

  constructor(
    private readonly models: Models,
    private readonly ttlMs: number,
  ) {
    this.claims = new GroupCommit(async (docs) => {
      const dup = new Set<number>();
      try {
        await forAccounts(this.models.requests).insertMany(docs as never[], { ordered: false });
      } catch (err) {
        for (const i of duplicateIndexes(err)) dup.add(i);
      }
      return docs.map((_, i) => dup.has(i));
    });
    this.completions = new GroupCommit(async (items) => {
      await this.models.requests.bulkWrite(
        items.map(({ accountId, record: r }) => ({
          updateOne: {
            filter: { accountId, _id: idOf(accountId, r.requestId) },
            update: { $set: { status: 'done', interactionId: r.interactionId, outcome: r.outcome } },
          },
        })),
        { ordered: false },
      );
      return items.map(() => null);
    });
  }

  /** The stored outcomes of these requestIds. */
  async find(accountId: string, requestIds: string[]): Promise<Map<string, StoredOutcome>> {
    // One `_id` lookup each: the portable store answers `_id` equality from its index, `$in` by a scan.
    const docs = await Promise.all(
      requestIds.map((r) => this.models.requests.findOne({ accountId, _id: idOf(accountId, r) }).lean<Doc>()),
    );
    return new Map(docs.filter((d): d is Doc => d !== null).map((d) => [d.requestId as string, toOutcome(d)]));
  }

  /** Claims requestIds (status pending); returns those another request claimed first. */
  async claim(accountId: string, records: StoredOutcome[]): Promise<Set<string>> {
    if (!records.length) return new Set();
    const now = Date.now();
    const docs = records.map((r) => ({
      _id: idOf(accountId, r.requestId),
      accountId,
      ...r,
      createdAt: now,
      expiresAt: now + this.ttlMs,
    }));
    const refused = await this.claims.add(docs);
    return new Set(records.filter((_, i) => refused[i]).map((r) => r.requestId));
  }

  /** Stores the outcomes of processed requestIds. */
  async complete(accountId: string, records: StoredOutcome[]): Promise<void> {
    if (!records.length) return;
    await this.completions.add(records.map((record) => ({ accountId, record })));
  }

  /** Withdraws claims of an Invocation that was refused before processing anything. */
  async unclaim(accountId: string, requestIds: string[]): Promise<void> {
    if (!requestIds.length) return;
    // One delete per `_id` in one bulk write: the portable store serves `_id` equality from its index, `$in` by a scan.
    await this.models.requests.bulkWrite(
      requestIds.map((r) => ({ deleteOne: { filter: { accountId, _id: idOf(accountId, r), status: 'pending' } } })),
      { ordered: false },
    );
  }
}

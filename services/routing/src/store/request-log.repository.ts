import type { StoredOutcome } from '../domain/invocation';
import { duplicateIndexes } from './errors';
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

/** requestId dedupe records per account: claimed before processing, completed with the outcome. */
export class RequestLogRepository {
  constructor(
    private readonly models: Models,
    private readonly ttlMs: number,
  ) {}

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
    try {
      await this.models.requests.collection.insertMany(docs as never[], { ordered: false });
      return new Set();
    } catch (err) {
      return new Set(duplicateIndexes(err).map((i) => records[i]?.requestId as string));
    }
  }

  /** Stores the outcomes of processed requestIds. */
  async complete(accountId: string, records: StoredOutcome[]): Promise<void> {
    if (!records.length) return;
    await this.models.requests.bulkWrite(
      records.map((r) => ({
        updateOne: {
          filter: { accountId, _id: idOf(accountId, r.requestId) },
          update: { $set: { status: 'done', interactionId: r.interactionId, outcome: r.outcome } },
        },
      })),
      { ordered: false },
    );
  }

  /** Withdraws claims of an Invocation that was refused before processing anything. */
  async unclaim(accountId: string, requestIds: string[]): Promise<void> {
    if (!requestIds.length) return;
    await this.models.requests.deleteMany({
      accountId,
      _id: { $in: requestIds.map((r) => idOf(accountId, r)) },
      status: 'pending',
    });
  }
}

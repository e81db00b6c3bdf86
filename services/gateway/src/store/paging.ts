import type { Model } from 'mongoose';

/** One page of a listing and the total across pages. */
export interface Page<T> {
  items: T[];
  totalCount: number;
}

/** Reads one page in a stable order (creation time, then id). */
export async function readPage<T>(
  // biome-ignore lint/suspicious/noExplicitAny: any of the gateway's models
  model: Model<any>,
  filter: Record<string, unknown>,
  page: number,
  limit: number,
): Promise<Page<T>> {
  const [items, totalCount] = await Promise.all([
    model
      .find(filter, { outbox: 0, outboxSeq: 0, outboxPending: 0 })
      .sort({ createdAt: 1, _id: 1 })
      .skip((page - 1) * limit)
      .limit(limit)
      .lean<T[]>(),
    model.countDocuments(filter),
  ]);
  return { items, totalCount };
}

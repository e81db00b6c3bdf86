import type { Model } from 'mongoose';

// biome-ignore lint/suspicious/noExplicitAny: lean documents
type Doc = Record<string, any>;

/** Most operations in one bulk write (larger bulks stall the portable store for everyone). */
export const bulkLimit = 50;

/**
 * The change flag `dirty` of interactions and agents: set by every write but the lease owner's own routing
 * writes, read by the owner's next pass (an equality on an indexed pair), cleared at the version it merged.
 */

/** The documents carrying the change flag, with the version they carry it at. */
export function flagged(docs: Doc[]): Map<string, number> {
  return new Map(docs.filter((d) => d.dirty === true).map((d) => [d._id as string, d.version as number]));
}

/** Clears the change flag of documents merged at these versions (a later write keeps its flag). */
export async function clearFlags(
  // biome-ignore lint/suspicious/noExplicitAny: interactions and agents differ in their document types
  model: Model<any>,
  accountId: string,
  versions: Map<string, number>,
): Promise<void> {
  const ops = [...versions].map(([id, version]) => ({
    updateOne: { filter: { accountId, _id: id, version, dirty: true }, update: { $set: { dirty: false } } },
  }));
  for (let at = 0; at < ops.length; at += bulkLimit)
    await model.bulkWrite(ops.slice(at, at + bulkLimit), { ordered: false });
}

/**
 * Whether a driver error is a duplicate-key violation: E11000 on MongoDB; FerretDB 1.24 reports an
 * update or upsert that breaks a unique index as InternalError "UNIQUE constraint failed".
 */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: number; codeName?: string; message?: string } | undefined;
  return (
    e?.code === 11000 ||
    e?.codeName === 'DuplicateKey' ||
    (e?.codeName === 'InternalError' && /UNIQUE constraint failed|duplicate key/i.test(e.message ?? ''))
  );
}

/** The indexes of the documents a bulk insert refused as duplicates (other errors are rethrown). */
export function duplicateIndexes(err: unknown): number[] {
  const e = err as { writeErrors?: unknown; code?: number };
  const raw = e?.writeErrors;
  const list = (Array.isArray(raw) ? raw : raw ? [raw] : []) as {
    index: number;
    code?: number;
    err?: { code?: number };
  }[];
  if (!list.length) {
    if (isDuplicateKey(err)) return [0];
    throw err;
  }
  const out: number[] = [];
  for (const w of list) {
    const code = w.code ?? w.err?.code;
    if (code !== 11000) throw err;
    out.push(w.index);
  }
  return out;
}

/**
 * FerretDB 1.24 answers an update that breaks a unique index (and, on SQLite, some upserts) with
 * InternalError (code 1) carrying the backend's message instead of E11000: SQLite says
 * "UNIQUE constraint failed", PostgreSQL "duplicate key value violates unique constraint" (SQLSTATE 23505).
 */
const backendDuplicate =
  /UNIQUE constraint failed|duplicate key value violates unique constraint|SQLSTATE 23505|E11000/;

interface DriverError {
  code?: number;
  codeName?: string;
  message?: string;
  errmsg?: string;
}

/**
 * Whether a driver error is a duplicate-key violation (a unique index or `_id` collision): MongoDB's
 * E11000 (code 11000, or codeName DuplicateKey), or FerretDB's InternalError wrapping the SQLite or
 * PostgreSQL unique-constraint failure. A bulk error counts only when every write error is one.
 */
export function isDuplicateKeyError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const writeErrors = writeErrorsOf(err);
  if (writeErrors.length) return writeErrors.every((w) => isOneDuplicate(w));
  return isOneDuplicate(err as DriverError);
}

function isOneDuplicate(e: DriverError & { err?: DriverError }): boolean {
  if (e.code === 11000 || e.code === 11001 || e.codeName === 'DuplicateKey') return true;
  if (e.err && e.err !== e && isOneDuplicate(e.err)) return true;
  const text = `${e.message ?? ''} ${e.errmsg ?? ''}`;
  return (e.codeName === 'InternalError' || e.code === 1) && backendDuplicate.test(text);
}

function writeErrorsOf(err: object): (DriverError & { index?: number; err?: DriverError })[] {
  const raw = (err as { writeErrors?: unknown }).writeErrors;
  return (Array.isArray(raw) ? raw : raw ? [raw] : []) as (DriverError & { index?: number })[];
}

/**
 * The indexes of the documents an unordered bulk insert refused as duplicates; any other error
 * (or a write error that is not a duplicate) is rethrown.
 */
export function duplicateIndexes(err: unknown): number[] {
  const list = err && typeof err === 'object' ? writeErrorsOf(err) : [];
  if (!list.length) {
    if (isDuplicateKeyError(err)) return [0];
    throw err;
  }
  const out: number[] = [];
  for (const w of list) {
    if (!isOneDuplicate(w)) throw err;
    out.push(w.index ?? 0);
  }
  return out;
}

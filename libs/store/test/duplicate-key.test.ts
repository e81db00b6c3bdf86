import { duplicateIndexes, isDuplicateKeyError } from '../src/duplicate-key';

/** Errors as the drivers and stores raise them (shapes captured from MongoDB 7 and FerretDB 1.24). */
const mongo11000 = Object.assign(new Error('E11000 duplicate key error collection: db.t index: a_1'), {
  name: 'MongoServerError',
  code: 11000,
});
const ferretPostgres = Object.assign(
  new Error(
    '[msg_update.go:142 handler.(*Handler).updateDocument] ERROR: duplicate key value violates unique constraint "t_idx" (SQLSTATE 23505)',
  ),
  { name: 'MongoServerError', code: 1, codeName: 'InternalError' },
);
const ferretSqlite = Object.assign(new Error('UNIQUE constraint failed: t.a, t.b'), {
  name: 'MongoServerError',
  code: 1,
  codeName: 'InternalError',
});

describe('isDuplicateKeyError', () => {
  it('recognises MongoDB E11000 and DuplicateKey', () => {
    expect(isDuplicateKeyError(mongo11000)).toBe(true);
    expect(isDuplicateKeyError({ codeName: 'DuplicateKey', message: 'x' })).toBe(true);
  });

  it("recognises FerretDB's InternalError from PostgreSQL and SQLite unique constraints", () => {
    expect(isDuplicateKeyError(ferretPostgres)).toBe(true);
    expect(isDuplicateKeyError(ferretSqlite)).toBe(true);
  });

  it('recognises a bulk error whose every write error is a duplicate, and no other', () => {
    expect(isDuplicateKeyError({ code: 11000, writeErrors: [{ index: 1, code: 11000 }] })).toBe(true);
    expect(isDuplicateKeyError({ code: 11000, writeErrors: { index: 0, err: { code: 11000 } } })).toBe(true);
    expect(
      isDuplicateKeyError({
        writeErrors: [
          { index: 0, code: 11000 },
          { index: 1, code: 121 },
        ],
      }),
    ).toBe(false);
  });

  it('refuses other errors, including an InternalError about something else', () => {
    expect(isDuplicateKeyError(new Error('connection reset'))).toBe(false);
    expect(isDuplicateKeyError({ code: 1, codeName: 'InternalError', message: 'disk full' })).toBe(false);
    expect(isDuplicateKeyError({ code: 2, message: 'UNIQUE constraint failed' })).toBe(false);
    expect(isDuplicateKeyError(null)).toBe(false);
    expect(isDuplicateKeyError('E11000')).toBe(false);
  });
});

describe('duplicateIndexes', () => {
  it('lists the refused documents of an unordered bulk insert', () => {
    expect(
      duplicateIndexes({
        code: 11000,
        writeErrors: [
          { index: 1, code: 11000 },
          { index: 3, err: { code: 11000 } },
        ],
      }),
    ).toEqual([1, 3]);
  });

  it('treats a single duplicate error as the first document', () => {
    expect(duplicateIndexes(ferretPostgres)).toEqual([0]);
  });

  it('rethrows anything that is not only duplicates', () => {
    const mixed = {
      writeErrors: [
        { index: 0, code: 11000 },
        { index: 1, code: 121 },
      ],
    };
    expect(() => duplicateIndexes(mixed)).toThrow();
    const other = new Error('boom');
    expect(() => duplicateIndexes(other)).toThrow(other);
  });
});

import { AppError, toProblem } from '@cc/kit/errors';
import { Schema } from 'mongoose';
import {
  crossAccount,
  forAccount,
  forAccounts,
  isTenantScoped,
  scopeBulkOps,
  scopeDoc,
  scopeFilter,
  TenancyMisuseError,
  tenantScoped,
  UnscopedQueryError,
  unscopedBulkOps,
} from '../src/tenancy';

/** A model as the scoped path reads it, without a connection (its collection is never touched here). */
function modelOf(scoped: boolean) {
  const schema = new Schema({ accountId: String, name: String });
  if (scoped) schema.plugin(tenantScoped);
  return { schema, modelName: scoped ? 'Thing' : 'Meta', collection: { collectionName: 'things' } };
}

describe('scopeFilter / scopeDoc', () => {
  it("adds the handle's account to a filter and a document", () => {
    expect(scopeFilter('A', { _id: 'x' })).toEqual({ _id: 'x', accountId: 'A' });
    expect(scopeDoc('A', { _id: 'x', n: 1 })).toEqual({ _id: 'x', n: 1, accountId: 'A' });
    expect(scopeFilter('A', { _id: 'x', accountId: 'A' })).toEqual({ _id: 'x', accountId: 'A' });
  });

  it("refuses another account's id (a bug, coded)", () => {
    expect(() => scopeFilter('A', { accountId: 'B' })).toThrow(TenancyMisuseError);
    expect(() => scopeDoc('A', { accountId: 'B' })).toThrow(TenancyMisuseError);
    // An operator in place of an id would widen the filter past the account.
    expect(() => scopeFilter('A', { accountId: { $ne: 'A' } })).toThrow(TenancyMisuseError);
  });
});

describe('scopeBulkOps', () => {
  it('scopes every filter and every inserted or replacing document', () => {
    const ops = scopeBulkOps('A', [
      { insertOne: { document: { _id: 1 } } },
      { updateOne: { filter: { _id: 2 }, update: { $set: { n: 1 } }, upsert: true } },
      { updateMany: { filter: {}, update: { $set: { n: 1 } } } },
      { replaceOne: { filter: { _id: 3 }, replacement: { n: 3 } } },
      { deleteOne: { filter: { _id: 4 } } },
      { deleteMany: { filter: { n: 5 } } },
    ]);
    expect(ops).toEqual([
      { insertOne: { document: { _id: 1, accountId: 'A' } } },
      { updateOne: { filter: { _id: 2, accountId: 'A' }, update: { $set: { n: 1 } }, upsert: true } },
      { updateMany: { filter: { accountId: 'A' }, update: { $set: { n: 1 } } } },
      { replaceOne: { filter: { _id: 3, accountId: 'A' }, replacement: { n: 3, accountId: 'A' } } },
      { deleteOne: { filter: { _id: 4, accountId: 'A' } } },
      { deleteMany: { filter: { n: 5, accountId: 'A' } } },
    ]);
  });

  it('refuses an op of another account and an op it does not know', () => {
    expect(() => scopeBulkOps('A', [{ deleteOne: { filter: { accountId: 'B' } } }])).toThrow(TenancyMisuseError);
    expect(() => scopeBulkOps('A', [{ dropEverything: {} }])).toThrow(TenancyMisuseError);
  });
});

describe('unscopedBulkOps (the plugin and forAccounts check batches with it)', () => {
  it('names the ops that do not carry an account', () => {
    expect(
      unscopedBulkOps([
        { insertOne: { document: { accountId: 'A' } } },
        { insertOne: { document: { _id: 1 } } },
        { updateOne: { filter: { accountId: 'B', _id: 1 } } },
        { deleteOne: { filter: { _id: 1 } } },
      ]),
    ).toEqual(['insertOne', 'deleteOne']);
  });
});

describe('forAccount / forAccounts / crossAccount', () => {
  it('serves tenant models only, and only with an account', () => {
    expect(isTenantScoped(modelOf(true))).toBe(true);
    expect(isTenantScoped(modelOf(false))).toBe(false);
    expect(forAccount(modelOf(true), 'A').accountId).toBe('A');
    expect(() => forAccount(modelOf(false), 'A')).toThrow(TenancyMisuseError);
    expect(() => forAccounts(modelOf(false))).toThrow(TenancyMisuseError);
    expect(() => forAccount(modelOf(true), '')).toThrow(UnscopedQueryError);
  });

  it('a batch of several accounts refuses a document without one before any I/O', () => {
    const batch = forAccounts(modelOf(true));
    expect(() => batch.insertMany([{ _id: 'y', accountId: 'A' }, { _id: 'x' }])).toThrow(UnscopedQueryError);
    expect(() => batch.bulkWrite([{ deleteOne: { filter: { _id: 'x' } } }])).toThrow(UnscopedQueryError);
  });

  it('crossAccount is the named exit: it needs a reason', () => {
    const m = modelOf(true);
    expect(crossAccount(m, 'retention sweep')).toBe(m.collection);
    expect(() => crossAccount(m, '')).toThrow(TenancyMisuseError);
  });
});

it('the guard errors are coded 500s (a bug, never user input)', () => {
  const err = new UnscopedQueryError('Thing', 'find');
  expect(err).toBeInstanceOf(AppError);
  expect(toProblem(err)).toMatchObject({ status: 500, code: 'STORE.UNSCOPED_QUERY' });
  expect(toProblem(new TenancyMisuseError('x'))).toMatchObject({ status: 500, code: 'STORE.TENANCY_MISUSE' });
});

import mongoose, { type Connection, Schema } from 'mongoose';
import { freshName, testInfra } from '../../testing/src';
import { crossAccount, forAccount, forAccounts, tenantScoped, UnscopedQueryError } from '../src';

let conn: Connection;
beforeAll(async () => {
  conn = await mongoose.createConnection((await testInfra()).mongoUrl, { dbName: freshName('tenancy') }).asPromise();
});
afterAll(async () => {
  await conn.dropDatabase().catch(() => undefined);
  await conn.close();
});

it('refuses unscoped queries and lets an account see only its own documents', async () => {
  const schema = new Schema({ accountId: String, name: String });
  schema.plugin(tenantScoped);
  const Thing = conn.model('Thing', schema);
  await Thing.create([
    { accountId: 'A', name: 'a1' },
    { accountId: 'B', name: 'b1' },
  ]);
  await expect(Thing.find({ name: 'a1' })).rejects.toThrow(UnscopedQueryError);
  await expect(Thing.deleteMany({})).rejects.toThrow(UnscopedQueryError);
  await expect(Thing.updateOne({ name: 'b1' }, { $set: { name: 'x' } })).rejects.toThrow(UnscopedQueryError);
  await expect(Thing.aggregate([{ $group: { _id: '$accountId' } }])).rejects.toThrow(UnscopedQueryError);
  await expect(new Thing({ name: 'orphan' }).save()).rejects.toThrow(UnscopedQueryError);
  expect((await Thing.find({ accountId: 'A' }).lean()).map((t) => t.name)).toEqual(['a1']);
  expect(await Thing.countDocuments({ accountId: 'B' })).toBe(1);
});

describe('the scoped access path on the real store', () => {
  const schema = new Schema({ _id: String, accountId: String, n: Number, tag: String }, { versionKey: false });
  schema.plugin(tenantScoped);
  let Item: ReturnType<typeof itemModel>;
  const itemModel = () => conn.model('Item', schema, 'items');
  beforeAll(async () => {
    Item = itemModel();
    await forAccount(Item, 'A').insertMany([
      { _id: 'a1', n: 1 },
      { _id: 'a2', n: 2 },
    ]);
    await forAccount(Item, 'B').insertOne({ _id: 'b1', n: 10 });
  });
  const raw = () => crossAccount(Item, 'test: inspect every account');

  it("stamps inserted documents with the handle's account", async () => {
    expect(await raw().findOne({ _id: 'a1' })).toMatchObject({ accountId: 'A', n: 1 });
    expect(await raw().findOne({ _id: 'b1' })).toMatchObject({ accountId: 'B', n: 10 });
  });

  it("never reads B's documents through A's handle", async () => {
    const a = forAccount(Item, 'A');
    expect(await a.findOne({ _id: 'b1' })).toBeNull();
    expect((await a.find({}).toArray()).map((d) => d._id).sort()).toEqual(['a1', 'a2']);
    expect(await a.countDocuments({})).toBe(2);
  });

  it("never changes B's documents through A's handle", async () => {
    const a = forAccount(Item, 'A');
    expect((await a.updateOne({ _id: 'b1' }, { $set: { tag: 'x' } })).matchedCount).toBe(0);
    expect((await a.updateMany({}, { $set: { tag: 'seen' } })).matchedCount).toBe(2);
    expect(await a.findOneAndUpdate({ _id: 'b1' }, { $set: { tag: 'x' } })).toBeNull();
    expect((await a.replaceOne({ _id: 'b1' }, { n: 0 })).matchedCount).toBe(0);
    const bulk = await a.bulkWrite([
      { updateOne: { filter: { _id: 'b1' }, update: { $inc: { n: 1 } } } },
      { updateOne: { filter: { _id: 'a1' }, update: { $inc: { n: 1 } } } },
      { deleteOne: { filter: { _id: 'b1' } } },
    ]);
    expect(bulk.matchedCount).toBe(1);
    expect(bulk.deletedCount).toBe(0);
    expect((await a.deleteMany({ _id: 'b1' })).deletedCount).toBe(0);
    // B's document is as it was written; A's moved.
    expect(await raw().findOne({ _id: 'b1' })).toEqual({ _id: 'b1', accountId: 'B', n: 10 });
    expect(await raw().findOne({ _id: 'a1' })).toMatchObject({ n: 2, tag: 'seen' });
  });

  it('an upsert through a handle lands in its account', async () => {
    await forAccount(Item, 'B').updateOne({ _id: 'b2' }, { $set: { n: 5 } }, { upsert: true });
    expect(await raw().findOne({ _id: 'b2' })).toEqual({ _id: 'b2', accountId: 'B', n: 5 });
  });

  it('refuses unscoped calls with a coded error and writes nothing', async () => {
    const coded = expect.objectContaining({ code: 'STORE.UNSCOPED_QUERY', status: 500 });
    await expect(Item.find({ n: 1 })).rejects.toEqual(coded);
    await expect(Item.insertMany([{ _id: 'orphan', n: 1 }])).rejects.toEqual(coded);
    await expect(Item.bulkWrite([{ deleteOne: { filter: { _id: 'b1' } } }])).rejects.toEqual(coded);
    expect(() => forAccounts(Item).insertMany([{ _id: 'orphan2', n: 1 }])).toThrow(UnscopedQueryError);
    expect(await raw().findOne({ _id: 'orphan' })).toBeNull();
    expect(await raw().findOne({ _id: 'orphan2' })).toBeNull();
    expect(await raw().findOne({ _id: 'b1' })).not.toBeNull();
  });

  it('a batch of several accounts writes each document in its own account (one round trip)', async () => {
    await forAccounts(Item).insertMany([
      { _id: 'a9', accountId: 'A', n: 9 },
      { _id: 'b9', accountId: 'B', n: 9 },
    ]);
    expect(await forAccount(Item, 'A').findOne({ _id: 'a9' })).not.toBeNull();
    expect(await forAccount(Item, 'A').findOne({ _id: 'b9' })).toBeNull();
    expect(await forAccount(Item, 'B').findOne({ _id: 'b9' })).not.toBeNull();
  });
});

import mongoose, { type Connection, Schema } from 'mongoose';
import { freshName, testInfra } from '../../testing/src';
import { tenantScoped, UnscopedQueryError } from '../src';

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

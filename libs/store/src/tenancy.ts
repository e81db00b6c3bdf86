import { AppError } from '@cc/kit/errors';
import type { mongo, Schema } from 'mongoose';

const queryOps = [
  'find',
  'findOne',
  'findOneAndUpdate',
  'findOneAndDelete',
  'findOneAndReplace',
  'countDocuments',
  'updateOne',
  'updateMany',
  'replaceOne',
  'deleteOne',
  'deleteMany',
  'distinct',
] as const;

/** A bug, never user input: a 500 whose code names the broken rule in the logs. */
const bug = { status: 500, title: 'Internal error' } as const;

/** Thrown when code queries a tenant collection without naming the account: a bug, never user input. */
export class UnscopedQueryError extends AppError {
  constructor(model: string, op: string) {
    super('STORE.UNSCOPED_QUERY', `${op} on ${model} without accountId in the filter`, [], {}, bug);
    this.name = 'UnscopedQueryError';
  }
}

/** Thrown when the scoped access path is misused (another account's id in a filter, no reason given, ...). */
export class TenancyMisuseError extends AppError {
  constructor(message: string) {
    super('STORE.TENANCY_MISUSE', message, [], {}, bug);
    this.name = 'TenancyMisuseError';
  }
}

/** Schemas with the tenancy guard: {@link forAccount} serves only these (their documents carry `accountId`). */
const tenantSchemas = new WeakSet<object>();

type Filter = Record<string, unknown>;
const filterOf = (op: { filter?: unknown } | undefined): Filter | undefined => op?.filter as Filter | undefined;

/** The bulk-write ops whose filter or document lacks an `accountId` string (pure: unit-tested). */
export function unscopedBulkOps(ops: readonly Record<string, unknown>[]): string[] {
  const bad: string[] = [];
  for (const op of ops) {
    const [kind, body] = Object.entries(op)[0] ?? ['?', undefined];
    const b = body as { filter?: unknown; document?: unknown } | undefined;
    const target = kind === 'insertOne' ? (b?.document as Filter | undefined) : filterOf(b);
    if (typeof target?.accountId !== 'string') bad.push(kind);
  }
  return bad;
}

/**
 * Mongoose plugin for collections whose documents carry `accountId`: every query, aggregate, insert and
 * bulk write must name an `accountId` string, so an unscoped read or write cannot be written by accident.
 * Driver-level access (below mongoose middleware) goes through {@link forAccount} or {@link crossAccount}.
 */
export function tenantScoped(schema: Schema): void {
  tenantSchemas.add(schema);
  for (const op of queryOps) {
    schema.pre(op, function (this: { getFilter(): Record<string, unknown>; model: { modelName: string } }) {
      if (typeof this.getFilter().accountId !== 'string') throw new UnscopedQueryError(this.model.modelName, op);
    });
  }
  // biome-ignore lint/suspicious/noExplicitAny: mongoose types 'aggregate' middleware only on the untyped overload
  const untyped = schema as any;
  untyped.pre('aggregate', function (this: { pipeline(): Record<string, unknown>[]; _model?: { modelName: string } }) {
    const first = this.pipeline()[0] as { $match?: { accountId?: unknown } } | undefined;
    if (typeof first?.$match?.accountId !== 'string')
      throw new UnscopedQueryError(this._model?.modelName ?? '?', 'aggregate');
  });
  schema.pre('save', function (this: { accountId?: unknown; constructor: { modelName: string } }) {
    if (typeof this.accountId !== 'string' || !this.accountId)
      throw new UnscopedQueryError(this.constructor.modelName, 'save');
  });
  // Model-level batch writes bypass query middleware: guard them too (each op must name its account).
  type Next = (err?: Error) => void;
  untyped.pre('insertMany', function (this: { modelName: string }, next: Next, docs: unknown) {
    const list = (Array.isArray(docs) ? docs : [docs]) as Filter[];
    const bad = list.some((d) => typeof d?.accountId !== 'string' || !d.accountId);
    next(bad ? new UnscopedQueryError(this.modelName, 'insertMany') : undefined);
  });
  untyped.pre('bulkWrite', function (this: { modelName: string }, next: Next, ops: Record<string, unknown>[]) {
    const bad = unscopedBulkOps(ops ?? []);
    next(bad.length ? new UnscopedQueryError(this.modelName, `bulkWrite ${bad[0]}`) : undefined);
  });
}

/** Whether a model carries the tenancy guard. */
export function isTenantScoped(model: { schema: Schema }): boolean {
  // The plugin list survives mongoose's schema clones (a model may hold a copy of the schema it was given).
  const plugins = (model.schema as unknown as { plugins?: { fn: unknown }[] }).plugins ?? [];
  return tenantSchemas.has(model.schema) || plugins.some((p) => p.fn === tenantScoped);
}

/** A model as the scoped access path needs it: its schema (to know it is tenant data) and its driver collection. */
export interface StoreModel {
  schema: Schema;
  modelName: string;
  collection: unknown;
}

/**
 * `filter` limited to the account: adds `accountId`; a filter naming another account is a bug (pure: unit-tested).
 */
export function scopeFilter<F extends object>(accountId: string, filter: F): F & { accountId: string } {
  const named = (filter as Filter).accountId;
  if (named !== undefined && named !== accountId)
    throw new TenancyMisuseError(`A filter of account ${accountId} names another account`);
  return { ...filter, accountId };
}

/** `doc` stamped with the account (pure: unit-tested); a document of another account is a bug. */
export function scopeDoc<D extends object>(accountId: string, doc: D): D & { accountId: string } {
  const named = (doc as Filter).accountId;
  if (named !== undefined && named !== accountId)
    throw new TenancyMisuseError(`A document of account ${accountId} names another account`);
  return { ...doc, accountId };
}

// biome-ignore lint/suspicious/noExplicitAny: bulk ops are a tagged union the driver types per document type
type AnyBulkOp = Record<string, any>;

/** Bulk-write ops limited to the account: filters and inserted or replacing documents (pure: unit-tested). */
export function scopeBulkOps(accountId: string, ops: readonly AnyBulkOp[]): AnyBulkOp[] {
  return ops.map((op) => {
    if (op.insertOne) return { insertOne: { ...op.insertOne, document: scopeDoc(accountId, op.insertOne.document) } };
    if (op.replaceOne)
      return {
        replaceOne: {
          ...op.replaceOne,
          filter: scopeFilter(accountId, op.replaceOne.filter),
          replacement: scopeDoc(accountId, op.replaceOne.replacement),
        },
      };
    const [kind, body] = Object.entries(op)[0] ?? [];
    if (!kind || !body?.filter) throw new TenancyMisuseError(`Unknown bulk operation ${kind ?? '(none)'}`);
    return { [kind]: { ...body, filter: scopeFilter(accountId, body.filter) } };
  });
}

// biome-ignore lint/suspicious/noExplicitAny: documents are read lean and mapped by the repositories
type Doc = { _id: string | number } & Record<string, any>;
type F<T extends Doc> = mongo.Filter<T>;

/**
 * One account's view of a tenant collection at the driver level (no mongoose casting or hydration: the hot
 * paths' batch writes). Every filter gets `accountId`, every inserted or replacing document carries it, so
 * one account's handle cannot read or change another's documents. Same round trips as the raw driver.
 */
export class AccountCollection<T extends Doc = Doc> {
  constructor(
    readonly accountId: string,
    private readonly raw: mongo.Collection<T>,
  ) {}

  /** The collection's name (metrics, logs). */
  get name(): string {
    return this.raw.collectionName;
  }

  private f(filter: F<T>): F<T> {
    return scopeFilter(this.accountId, filter) as F<T>;
  }

  findOne(filter: F<T>, options?: mongo.FindOptions): Promise<mongo.WithId<T> | null> {
    return this.raw.findOne(this.f(filter), options);
  }

  find(filter: F<T>, options?: mongo.FindOptions): mongo.FindCursor<mongo.WithId<T>> {
    return this.raw.find(this.f(filter), options);
  }

  countDocuments(filter: F<T> = {}, options?: mongo.CountDocumentsOptions): Promise<number> {
    return this.raw.countDocuments(this.f(filter), options);
  }

  insertOne(doc: mongo.OptionalUnlessRequiredId<T>, options?: mongo.InsertOneOptions) {
    return this.raw.insertOne(scopeDoc(this.accountId, doc), options);
  }

  insertMany(docs: readonly mongo.OptionalUnlessRequiredId<T>[], options?: mongo.BulkWriteOptions) {
    return this.raw.insertMany(
      docs.map((d) => scopeDoc(this.accountId, d)),
      options,
    );
  }

  updateOne(filter: F<T>, update: mongo.UpdateFilter<T>, options?: mongo.UpdateOptions) {
    return this.raw.updateOne(this.f(filter), update, options);
  }

  updateMany(filter: F<T>, update: mongo.UpdateFilter<T>, options?: mongo.UpdateOptions) {
    return this.raw.updateMany(this.f(filter), update, options);
  }

  replaceOne(filter: F<T>, doc: mongo.WithoutId<T>, options?: mongo.ReplaceOptions) {
    return this.raw.replaceOne(this.f(filter), scopeDoc(this.accountId, doc), options);
  }

  findOneAndUpdate(filter: F<T>, update: mongo.UpdateFilter<T>, options: mongo.FindOneAndUpdateOptions = {}) {
    return this.raw.findOneAndUpdate(this.f(filter), update, options);
  }

  deleteOne(filter: F<T>, options?: mongo.DeleteOptions) {
    return this.raw.deleteOne(this.f(filter), options);
  }

  deleteMany(filter: F<T>, options?: mongo.DeleteOptions) {
    return this.raw.deleteMany(this.f(filter), options);
  }

  bulkWrite(ops: readonly mongo.AnyBulkWriteOperation<T>[], options?: mongo.BulkWriteOptions) {
    return this.raw.bulkWrite(scopeBulkOps(this.accountId, ops) as mongo.AnyBulkWriteOperation<T>[], options);
  }
}

/**
 * THE way to reach a tenant collection below mongoose: one account's handle ({@link AccountCollection}).
 * Refuses a model without the tenancy guard (its documents carry no `accountId` to scope by) and an empty id.
 */
export function forAccount<T extends Doc = Doc>(model: StoreModel, accountId: string): AccountCollection<T> {
  if (!isTenantScoped(model)) throw new TenancyMisuseError(`${model.modelName} is not tenant-scoped`);
  if (typeof accountId !== 'string' || !accountId) throw new UnscopedQueryError(model.modelName, 'forAccount');
  return new AccountCollection<T>(accountId, model.collection as mongo.Collection<T>);
}

/**
 * Batch writes that span accounts (a group commit of concurrent requests) without splitting the batch:
 * each document and each op's filter must name its own account (checked, not added). Same round trips.
 */
export class AccountsBatch<T extends Doc = Doc> {
  constructor(private readonly raw: mongo.Collection<T>) {}

  private check(op: string, docs: readonly object[]): void {
    if (docs.some((d) => typeof (d as Filter).accountId !== 'string' || !(d as Filter).accountId))
      throw new UnscopedQueryError(this.raw.collectionName, op);
  }

  insertOne(doc: mongo.OptionalUnlessRequiredId<T>, options?: mongo.InsertOneOptions) {
    this.check('insertOne', [doc]);
    return this.raw.insertOne(doc, options);
  }

  insertMany(docs: readonly mongo.OptionalUnlessRequiredId<T>[], options?: mongo.BulkWriteOptions) {
    this.check('insertMany', docs);
    return this.raw.insertMany(docs, options);
  }

  bulkWrite(ops: readonly mongo.AnyBulkWriteOperation<T>[], options?: mongo.BulkWriteOptions) {
    const bad = unscopedBulkOps(ops as unknown as Record<string, unknown>[]);
    if (bad.length) throw new UnscopedQueryError(this.raw.collectionName, `bulkWrite ${bad[0]}`);
    return this.raw.bulkWrite(ops as mongo.AnyBulkWriteOperation<T>[], options);
  }
}

/** The scoped path for batches of several accounts ({@link AccountsBatch}); tenant models only. */
export function forAccounts<T extends Doc = Doc>(model: StoreModel): AccountsBatch<T> {
  if (!isTenantScoped(model)) throw new TenancyMisuseError(`${model.modelName} is not tenant-scoped`);
  return new AccountsBatch<T>(model.collection as mongo.Collection<T>);
}

/**
 * The named, greppable exit from the scoped path: the raw driver collection, for the rare needs that span
 * accounts or predate knowing one (sweeps, leases, retention, outbox relay, authentication, platform
 * bookkeeping keyed by something other than `accountId`). `reason` says which; grep `crossAccount(` to
 * review them all.
 */
export function crossAccount<T extends mongo.Document = Doc>(model: StoreModel, reason: string): mongo.Collection<T> {
  if (typeof reason !== 'string' || reason.trim().length < 3)
    throw new TenancyMisuseError(`crossAccount on ${model.modelName} needs a reason`);
  return model.collection as mongo.Collection<T>;
}

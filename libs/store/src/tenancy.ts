import type { Schema } from 'mongoose';

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

/** Thrown when code queries a tenant collection without naming the account: a bug, never user input. */
export class UnscopedQueryError extends Error {
  constructor(model: string, op: string) {
    super(`${op} on ${model} without accountId in the filter`);
    this.name = 'UnscopedQueryError';
  }
}

/**
 * Mongoose plugin for collections whose documents carry `accountId`: every query and aggregate must
 * filter on an `accountId` string, so an unscoped read or write cannot be written by accident.
 */
export function tenantScoped(schema: Schema): void {
  for (const op of queryOps) {
    schema.pre(op, function (this: { getFilter(): Record<string, unknown>; model: { modelName: string } }) {
      if (typeof this.getFilter().accountId !== 'string') throw new UnscopedQueryError(this.model.modelName, op);
    });
  }
  // biome-ignore lint/suspicious/noExplicitAny: mongoose types 'aggregate' middleware only on the untyped overload
  (schema as any).pre(
    'aggregate',
    function (this: { pipeline(): Record<string, unknown>[]; _model?: { modelName: string } }) {
      const first = this.pipeline()[0] as { $match?: { accountId?: unknown } } | undefined;
      if (typeof first?.$match?.accountId !== 'string')
        throw new UnscopedQueryError(this._model?.modelName ?? '?', 'aggregate');
    },
  );
  schema.pre('save', function (this: { accountId?: unknown; constructor: { modelName: string } }) {
    if (typeof this.accountId !== 'string' || !this.accountId)
      throw new UnscopedQueryError(this.constructor.modelName, 'save');
  });
}

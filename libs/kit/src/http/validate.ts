import { bodyValidator, type JsonSchema, queryValidator, type Violation } from '@cc/contracts';
import type { RequestHandler } from 'express';
import { AppError } from '../errors';

/** The schemas of one operation's request parts, taken from `@cc/contracts`. */
export interface RequestSchemas {
  /** JSON body; schema defaults are applied to `req.body` (a missing body is validated as `{}`). */
  body?: JsonSchema;
  /** Query string; values are coerced to the schema's types and defaulted, and `req.query` is replaced. */
  query?: JsonSchema;
  /** Path parameters; coerced like the query, and `req.params` is replaced. */
  params?: JsonSchema;
}

const prefixed = (prefix: string, errors: Violation[]): Violation[] =>
  errors.map((e) => ({ ...e, pointer: `${prefix}${e.pointer}` }));

/**
 * Express middleware validating a request against its operation's schemas; every violation becomes one
 * `{pointer, message}` of a `REQUEST.VALIDATION` error (400): body pointers are relative to the body
 * (`/requests/0/route`), query and path pointers are `/query/<name>` and `/params/<name>`.
 */
export function validateRequest(schemas: RequestSchemas): RequestHandler {
  // Compiled here, once, so a broken schema fails at startup rather than on the first request.
  const params = schemas.params && queryValidator<Record<string, string>>(schemas.params, { rootLabel: 'params' });
  const query = schemas.query && queryValidator<Record<string, unknown>>(schemas.query, { rootLabel: 'query' });
  const body = schemas.body && bodyValidator<unknown>(schemas.body, { rootLabel: 'body' });
  return (req, _res, next) => {
    const errors: Violation[] = [];
    if (params) {
      const result = params(req.params);
      if (result.ok) req.params = result.value;
      else errors.push(...prefixed('/params', result.errors));
    }
    if (query) {
      const result = query(req.query);
      // Express 5 recomputes req.query from the URL on every read; an own property keeps the coerced values.
      if (result.ok)
        Object.defineProperty(req, 'query', {
          value: result.value,
          writable: true,
          configurable: true,
          enumerable: true,
        });
      else errors.push(...prefixed('/query', result.errors));
    }
    if (body) {
      const data: unknown = req.body === undefined ? {} : req.body;
      const result = body(data);
      if (result.ok) req.body = result.value;
      else errors.push(...result.errors);
    }
    if (errors.length) {
      throw new AppError('REQUEST.VALIDATION', `${errors.length} violation(s) of the request rules`, errors);
    }
    next();
  };
}

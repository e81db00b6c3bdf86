/** The HTTP status and problem title of an error code. */
export interface ErrorMapping {
  status: number;
  title: string;
}

/**
 * A coded application error. Its HTTP status is fixed where its code is defined: the kit's own codes
 * below, a service's codes by {@link defineErrorCodes} (no global table a forgotten import leaves short).
 */
export class AppError extends Error {
  /** HTTP status of the problem answer. */
  readonly status: number;
  /** Problem title. */
  readonly title: string;
  constructor(
    code: KitErrorCode,
    message: string,
    errors?: readonly FieldError[],
    extra?: Readonly<Record<string, unknown>>,
  );
  /** With the mapping of a code defined elsewhere (use {@link defineErrorCodes}). */
  constructor(
    code: string,
    message: string,
    errors: readonly FieldError[],
    extra: Readonly<Record<string, unknown>>,
    mapping: ErrorMapping,
  );
  constructor(
    /** Stable, dotted code, e.g. `ROUTING.UNKNOWN_ROUTE`. */
    readonly code: string,
    message: string,
    /** Per-field violations as RFC 6901 JSON pointers into the request. */
    readonly errors: readonly FieldError[] = [],
    /** Extra members merged into the problem body (never secrets). */
    readonly extra: Readonly<Record<string, unknown>> = {},
    mapping?: ErrorMapping,
  ) {
    super(message);
    this.name = 'AppError';
    const m = mapping ?? kitCodes[code as KitErrorCode] ?? kitCodes.INTERNAL;
    this.status = m.status;
    this.title = m.title;
  }
}

/** One violation of a request rule. */
export interface FieldError {
  pointer: string;
  message: string;
}

/** RFC 9457 problem details as this suite answers them. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  code: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

const kitCodes = {
  'REQUEST.VALIDATION': { status: 400, title: 'Request is invalid' },
  'REQUEST.MALFORMED_JSON': { status: 400, title: 'Request body is not valid JSON' },
  'REQUEST.UNSUPPORTED_MEDIA_TYPE': { status: 415, title: 'Unsupported media type' },
  'REQUEST.NOT_ACCEPTABLE': { status: 406, title: 'Requested version is not available' },
  'REQUEST.TOO_LARGE': { status: 413, title: 'Request body is too large' },
  'REQUEST.HEADERS_TOO_LARGE': { status: 431, title: 'Request header fields are too large' },
  'REQUEST.TIMEOUT': { status: 408, title: 'Request timeout' },
  'REQUEST.NOT_FOUND': { status: 404, title: 'Not found' },
  'REQUEST.METHOD_NOT_ALLOWED': { status: 405, title: 'Method not allowed' },
  'REQUEST.CONFLICT': { status: 409, title: 'Conflict' },
  'REQUEST.RATE_LIMITED': { status: 429, title: 'Too many requests' },
  'AUTH.UNAUTHENTICATED': { status: 401, title: 'Authentication required' },
  'AUTH.FORBIDDEN': { status: 403, title: 'Forbidden' },
  'DEPENDENCY.UNAVAILABLE': { status: 503, title: 'A dependency is unavailable' },
  'DEPENDENCY.BAD_GATEWAY': { status: 502, title: 'Bad gateway' },
  'DEPENDENCY.TIMEOUT': { status: 504, title: 'Gateway timeout' },
  INTERNAL: { status: 500, title: 'Internal error' },
} satisfies Record<string, ErrorMapping>;

/** A code the kit defines (requests, auth, dependencies). */
export type KitErrorCode = keyof typeof kitCodes;

/** Builds a service's coded errors; each carries its status. */
export type ErrorFactory<C extends string> = (
  code: C | KitErrorCode,
  message: string,
  errors?: readonly FieldError[],
  extra?: Readonly<Record<string, unknown>>,
) => AppError;

/**
 * Defines a service's own codes with their statuses (e.g. `ROUTING.UNKNOWN_ROUTE` → 422) and returns
 * the factory of its errors: the status travels with each error, so no import order can lose it.
 */
export function defineErrorCodes<C extends string>(codes: Readonly<Record<C, ErrorMapping>>): ErrorFactory<C> {
  return (code, message, errors = [], extra = {}) =>
    new AppError(
      code,
      message,
      errors,
      extra,
      (codes as Record<string, ErrorMapping>)[code] ?? kitCodes[code as KitErrorCode],
    );
}

/** The status and title of a kit code; any other code is a 500 (there is no fallback by prefix). */
export function statusByCode(code: string): ErrorMapping {
  return kitCodes[code as KitErrorCode] ?? kitCodes.INTERNAL;
}

const connectivityNames =
  /^(MongoNetwork|MongoServerSelection|MongoNotConnected|PoolCleared|MongoTopologyClosed|KafkaJSConnection|KafkaJSNumberOfRetriesExceeded|KafkaJSRequestTimeout)/;

/**
 * Whether an error is a MongoDB or Kafka connectivity failure (the store or the broker is down or
 * unreachable) rather than a fault of the request or the code; a mongoose operation that timed out
 * waiting for a connection counts too.
 */
export function isConnectivityError(err: unknown): boolean {
  const e = err as { name?: string; message?: string; constructor?: { name?: string } } | null;
  if (!e) return false;
  if (connectivityNames.test(e.name ?? '') || connectivityNames.test(e.constructor?.name ?? '')) return true;
  return e.name === 'MongooseError' && /buffering timed out/.test(e.message ?? '');
}

/** The problem schema's maxima (libs/contracts `problem`): a request may be far longer than a problem may echo. */
const problemBounds = { instance: 500, detail: 2000, field: 1000, errors: 1000 } as const;

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** `instance` is the request path: never the query (it may hold credentials), at most 500 characters. */
function instanceOf(url: string): string {
  const q = url.indexOf('?');
  return clip(q < 0 ? url : url.slice(0, q), problemBounds.instance);
}

/**
 * Builds the problem body for an error: a connectivity failure is a 503 (the client may retry), any
 * other unknown error a 500 without internal detail.
 */
export function toProblem(err: unknown, instance?: string): Problem {
  if (!(err instanceof AppError) && isConnectivityError(err)) {
    return toProblem(
      new AppError('DEPENDENCY.UNAVAILABLE', 'A backing store or the event broker is unavailable; retry shortly'),
      instance,
    );
  }
  if (instance !== undefined) instance = instanceOf(instance);
  if (err instanceof AppError) {
    const { status, title } = err;
    return {
      ...err.extra,
      type: `https://cc-suite.dev/problems/${err.code.toLowerCase().replace(/[._]/g, '-')}`,
      title,
      status,
      detail: clip(err.message, problemBounds.detail),
      code: err.code,
      ...(instance ? { instance } : {}),
      ...(err.errors.length
        ? {
            errors: err.errors.slice(0, problemBounds.errors).map((e) => ({
              pointer: clip(e.pointer, problemBounds.field),
              message: clip(e.message, problemBounds.field),
            })),
          }
        : {}),
    };
  }
  return {
    type: 'https://cc-suite.dev/problems/internal',
    title: 'Internal error',
    status: 500,
    detail: 'An unexpected error occurred; the request id identifies it in the logs.',
    code: 'INTERNAL',
    ...(instance ? { instance } : {}),
  };
}

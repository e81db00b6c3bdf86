/** One violation named by a 400 problem: an RFC 6901 pointer to the field and a message. */
export interface FieldError {
  pointer: string;
  message: string;
}

/** Any non-2xx answer of the suite: the HTTP status, the request id to quote, and the raw body text. */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  constructor(
    message: string,
    /** HTTP status of the answer. */
    readonly status: number,
    /** The `x-request-id` of the answer, when it had one. */
    readonly requestId: string | undefined,
    /** The body as received (for logs; problem bodies never carry secrets). */
    readonly body: string,
    /** Seconds from `Retry-After` (429, 503), when present. */
    readonly retryAfter: number | undefined,
  ) {
    super(message);
  }
}

/** The RFC 9457 problem body as the contracts define it (`Problem` in every OpenAPI document). */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  errors?: FieldError[];
  validVersions?: number[];
}

/** A `application/problem+json` answer: the stable `code`, `type`, `detail` and, for validation, the field pointers. */
export class ProblemError extends ApiError {
  override readonly name: string = 'ProblemError';
  /** Stable dotted error code, e.g. `REQUEST.VALIDATION`, `AUTH.FORBIDDEN`. */
  readonly code: string;
  /** Problem type URI. */
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  /** The request path the problem is about. */
  readonly instance: string | undefined;
  /** One `{pointer, message}` per violation (400), else empty. */
  readonly errors: FieldError[];
  /** On 406: the versions the API serves. */
  readonly validVersions: number[] | undefined;

  constructor(problem: ProblemBody, status: number, requestId: string | undefined, body: string, retryAfter?: number) {
    super(`${status} ${problem.code}: ${problem.detail}`, status, requestId, body, retryAfter);
    this.code = problem.code;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.instance = problem.instance;
    this.errors = problem.errors ?? [];
    this.validVersions = problem.validVersions;
  }

  /** The pointers of the violations (`/requests/0/route`, `/query/start`, ...). */
  get pointers(): string[] {
    return this.errors.map((e) => e.pointer);
  }
}

/** An RFC 6749 error of the token endpoint (`invalid_client`, `invalid_scope`, ...). */
export class OAuthError extends ApiError {
  override readonly name: string = 'OAuthError';
  constructor(
    /** The RFC 6749 `error` code. */
    readonly error: string,
    /** `error_description`, when given. */
    readonly errorDescription: string | undefined,
    status: number,
    requestId: string | undefined,
    body: string,
  ) {
    super(`${status} ${error}${errorDescription ? `: ${errorDescription}` : ''}`, status, requestId, body, undefined);
  }
}

/** Thrown before any request when an operation needs a scope the client was not configured with. */
export class ScopeError extends Error {
  override readonly name = 'ScopeError';
  constructor(
    readonly operation: string,
    /** The scopes the operation accepts. */
    readonly required: readonly string[],
  ) {
    super(`${operation} needs a token with scope ${required.join(' or ')}, which this client was not given`);
  }
}

/** Reads a non-2xx response into the matching typed error (the body is consumed). */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const retry = Number(response.headers.get('retry-after') ?? Number.NaN);
  const retryAfter = Number.isFinite(retry) ? retry : undefined;
  const contentType = response.headers.get('content-type') ?? '';
  let parsed: unknown;
  if (/json/i.test(contentType)) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (isRecord(parsed)) {
    if (/problem\+json/i.test(contentType) && typeof parsed.code === 'string') {
      return new ProblemError(parsed as unknown as ProblemBody, response.status, requestId, text, retryAfter);
    }
    if (typeof parsed.error === 'string') {
      const description = typeof parsed.error_description === 'string' ? parsed.error_description : undefined;
      return new OAuthError(parsed.error, description, response.status, requestId, text);
    }
  }
  return new ApiError(
    `${response.status} ${response.statusText || 'error'}${text ? `: ${text.slice(0, 200)}` : ''}`,
    response.status,
    requestId,
    text,
    retryAfter,
  );
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

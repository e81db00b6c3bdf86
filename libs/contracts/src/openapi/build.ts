import type { JsonSchema } from '../json-schema';
import { scopes } from '../schemas/auth';
import { fieldError, oauthError, problem } from '../schemas/problem';
import { type ApiVersions, vendorMediaTypes } from '../versions';

/** A loosely typed OpenAPI object (the documents are plain JSON). */
export type OpenApiObject = Record<string, unknown>;

/** The OpenAPI version every document declares. */
export const openApiVersion = '3.1.0';

/** The server: the gateway, at the address the document was fetched from. */
export const servers = [
  { url: '/', description: 'The gateway serving this document (every path is relative to its base URL).' },
];

/** The security schemes of the suite's own OAuth2 issuer. */
export const oauth2Schemes = {
  oauth2: {
    type: 'oauth2',
    description:
      'OAuth2 client credentials at POST /Auth/connect/token (form body or HTTP Basic). Exactly one scope per token; tokens are JWTs carrying the account id, valid 7200 s, verified against /.well-known/jwks.json. An external OIDC issuer can replace the built-in one by configuration.',
    flows: { clientCredentials: { tokenUrl: '/Auth/connect/token', scopes } },
  },
};

/** `security` of an operation requiring one scope. */
export function requireScope(scope: keyof typeof scopes): OpenApiObject[] {
  return [{ oauth2: [scope] }];
}

const requestIdHeader = {
  description:
    'Request id (kept from the request when well-formed, generated otherwise); quote it when reporting a problem.',
  schema: { type: 'string', maxLength: 200 },
};

/** Every 503 carries it (the kit's problem handler and the gateway's proxy both set 5 s). */
const retryAfterHeader = {
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
};

const rateLimitHeaders = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer', minimum: 0 } },
};

const defaultProblemText: Record<number, string> = {
  400: 'The request is invalid: `errors` lists one `{pointer, message}` per violation (`REQUEST.VALIDATION`), or the body is not JSON (`REQUEST.MALFORMED_JSON`).',
  401: 'No token, or a malformed, wrongly signed or expired one (`AUTH.UNAUTHENTICATED`).',
  403: 'The token lacks the scope this operation requires (`AUTH.FORBIDDEN`).',
  404: 'Not found (`REQUEST.NOT_FOUND`).',
  406: 'Accept names a version this API does not serve; `validVersions` lists those it does (`REQUEST.NOT_ACCEPTABLE`).',
  409: 'Conflict with the current state (`REQUEST.CONFLICT`).',
  413: 'The body exceeds the size limit (`REQUEST.TOO_LARGE`).',
  415: 'The body is not `application/json` (`REQUEST.UNSUPPORTED_MEDIA_TYPE`).',
  422: 'The request is well-formed but refers to something that does not exist.',
  429: 'Too many requests from this client; retry after `Retry-After` seconds (`REQUEST.RATE_LIMITED`).',
  502: 'The service behind the gateway refused or broke the connection (`DEPENDENCY.BAD_GATEWAY`); the request may or may not have taken effect: retry only what is safe to repeat (reads, PUT, DELETE, Invoke with the same requestId).',
  503: 'A dependency is unavailable for now (the store, the broker, or the service behind the gateway); retry after `Retry-After` seconds (`DEPENDENCY.UNAVAILABLE`).',
  504: 'The service behind the gateway did not answer in time (`DEPENDENCY.TIMEOUT`); the request may still take effect: retry only what is safe to repeat (reads, PUT, DELETE, Invoke with the same requestId).',
};

const problemCode: Record<number, string> = {
  400: 'REQUEST.VALIDATION',
  401: 'AUTH.UNAUTHENTICATED',
  403: 'AUTH.FORBIDDEN',
  404: 'REQUEST.NOT_FOUND',
  406: 'REQUEST.NOT_ACCEPTABLE',
  409: 'REQUEST.CONFLICT',
  413: 'REQUEST.TOO_LARGE',
  415: 'REQUEST.UNSUPPORTED_MEDIA_TYPE',
  422: 'REQUEST.UNPROCESSABLE',
  429: 'REQUEST.RATE_LIMITED',
  502: 'DEPENDENCY.BAD_GATEWAY',
  503: 'DEPENDENCY.UNAVAILABLE',
  504: 'DEPENDENCY.TIMEOUT',
};

const problemTitle: Record<number, string> = {
  400: 'Request is invalid',
  401: 'Authentication required',
  403: 'Forbidden',
  404: 'Not found',
  406: 'Requested version is not available',
  409: 'Conflict',
  413: 'Request body is too large',
  415: 'Unsupported media type',
  422: 'Unprocessable content',
  429: 'Too many requests',
  502: 'Bad gateway',
  503: 'A dependency is unavailable',
  504: 'Gateway timeout',
};

/** An example problem body for a status, shaped as the kit's error handler writes it. */
export function problemExample(status: number, detail: string, extra: Record<string, unknown> = {}): OpenApiObject {
  const code = (extra.code as string | undefined) ?? problemCode[status] ?? 'INTERNAL';
  return {
    type: `https://cc-suite.dev/problems/${code.toLowerCase().replace(/[._]/g, '-')}`,
    title: problemTitle[status] ?? 'Error',
    status,
    detail,
    code,
    ...extra,
  };
}

/** A problem+json response; description defaults to the suite's standard text for the status. */
export function problemResponse(status: number, description?: string, example?: OpenApiObject): OpenApiObject {
  const text = description ?? defaultProblemText[status] ?? 'Error.';
  return {
    description: text,
    headers: {
      'x-request-id': requestIdHeader,
      ...(status === 429 ? rateLimitHeaders : status === 503 ? retryAfterHeader : {}),
    },
    content: {
      'application/problem+json': {
        schema: problem,
        example: example ?? problemExample(status, text.replace(/\s*\(`[A-Z_.]+`\)/g, '').split(';')[0] ?? text),
      },
    },
  };
}

/** Problem responses for the given statuses; a string overrides the standard description; 406 lists `versions`. */
export function problems(spec: Record<number, true | string>, versions?: ApiVersions): Record<string, OpenApiObject> {
  return Object.fromEntries(
    Object.entries(spec).map(([status, d]) => {
      const description = d === true ? undefined : d;
      if (status === '406' && versions) {
        const valid = [...versions.supported];
        const unsupported = Math.max(...valid) + 1;
        const example = problemExample(
          406,
          `Version ${unsupported} of this API is not available; valid versions: ${valid.join(', ')}`,
          { validVersions: valid },
        );
        return [status, problemResponse(406, description, example)];
      }
      return [status, problemResponse(Number(status), description)];
    }),
  );
}

/** The 400 example with one pointer per violation. */
export function validationProblem(errors: { pointer: string; message: string }[]): OpenApiObject {
  return problemExample(400, `${errors.length} violation(s) of the request rules`, { errors });
}

/** A successful JSON response with named examples. */
export function jsonResponse(
  description: string,
  schema: JsonSchema,
  examples: Record<string, unknown> = {},
  mediaTypes: readonly string[] = ['application/json'],
): OpenApiObject {
  const media: OpenApiObject = { schema };
  if (Object.keys(examples).length) {
    media.examples = Object.fromEntries(Object.entries(examples).map(([k, value]) => [k, { value }]));
  }
  return {
    description,
    headers: { 'x-request-id': requestIdHeader },
    content: Object.fromEntries(mediaTypes.map((m) => [m, media])),
  };
}

/** An empty success response. */
export function noContent(description: string): OpenApiObject {
  return { description, headers: { 'x-request-id': requestIdHeader } };
}

/** A JSON request body with named examples. */
export function jsonBody(
  schema: JsonSchema,
  examples: Record<string, unknown> = {},
  description?: string,
): OpenApiObject {
  const media: OpenApiObject = { schema };
  if (Object.keys(examples).length) {
    media.examples = Object.fromEntries(Object.entries(examples).map(([k, value]) => [k, { value }]));
  }
  return { required: true, ...(description ? { description } : {}), content: { 'application/json': media } };
}

/** OpenAPI parameters from an object schema of query or path parameters (the same schema the validator uses). */
export function parameters(location: 'query' | 'path' | 'header', schema: JsonSchema): OpenApiObject[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, prop]) => {
    const s = prop as JsonSchema;
    return {
      name,
      in: location,
      required: location === 'path' ? true : required.has(name),
      ...(s.description ? { description: s.description } : {}),
      schema: s,
    };
  });
}

/** Content for every media type that selects a version, plus application/json for the default. */
export function versionedContent(
  versions: ApiVersions,
  schemaOf: (version: number) => JsonSchema,
  exampleOf: (version: number) => unknown,
): OpenApiObject {
  const content: OpenApiObject = {
    'application/json': { schema: schemaOf(versions.default), example: exampleOf(versions.default) },
  };
  for (const v of versions.supported) {
    for (const vendor of vendorMediaTypes) {
      content[`${vendor}.v${v}+json`] = { schema: schemaOf(v), example: exampleOf(v) };
    }
  }
  return content;
}

/**
 * The media types a versioned API's JSON responses carry: `application/json` for the default, and each vendor type
 * naming a supported version (the response Content-Type echoes the one the client asked for).
 */
export function versionedMediaTypes(versions: ApiVersions): string[] {
  return ['application/json', ...versions.supported.flatMap((v) => vendorMediaTypes.map((m) => `${m}.v${v}+json`))];
}

/** The Accept header parameter of a versioned API. */
export function acceptParameter(versions: ApiVersions): OpenApiObject {
  const list = versions.supported.join(', ');
  return {
    name: 'Accept',
    in: 'header',
    required: false,
    description: `Selects the version: \`application/vnd.newvoicemedia.v{n}+json\` or \`application/vnd.cc-suite.v{n}+json\` with n in {${list}}; \`application/json\`, \`*/*\`, no Accept or one naming no version at all (any other string) get v${versions.default}. The response Content-Type echoes the media type served; \`Vary: Accept\` is set. A version that is not served (a vendor type or \`version=\` naming it) is refused with 406 listing the valid ones.`,
    schema: { type: 'string', maxLength: 1000, examples: [`application/vnd.newvoicemedia.v${versions.default}+json`] },
  };
}

/** The schema components every document shares. */
export const sharedSchemas: Record<string, JsonSchema> = { Problem: problem, FieldError: fieldError };

/** Shared schema component names for the OAuth error body. */
export const oauthSchemas: Record<string, JsonSchema> = { OAuthError: oauthError };

/** The 503 of a path the gateway serves itself: only its own store can be missing. */
const gatewayStoreUnavailable =
  "The gateway's store is unavailable for now; retry after `Retry-After` seconds (`DEPENDENCY.UNAVAILABLE`).";

/**
 * Paths the gateway answers itself (its token endpoints, signing keys, event stream and identity administration):
 * no service behind it, so no 502 or 504. The gateway's route table must agree (its tests check every document).
 */
export const gatewayServedPaths =
  /^\/(?:Auth\/connect\/token|v0\/oauth2\/token|\.well-known\/jwks\.json|events\/stream|admin\/(?:accounts|account|clients|v0-credentials)(?:\/.*)?)$/;

/**
 * The answers any operation may get when something behind it is down, whatever it asks: 503 (a store, the broker or
 * the service is unavailable), and for a path the gateway passes to a service, 502 and 504.
 */
export function serverProblems(path: string): Record<string, OpenApiObject> {
  // The signing keys are served from the gateway's memory: nothing behind them can be down.
  if (path === '/.well-known/jwks.json') return {};
  return problems(
    gatewayServedPaths.test(path) ? { 503: gatewayStoreUnavailable } : { 502: true, 503: true, 504: true },
  );
}

/** Adds {@link serverProblems} to every operation under `paths` that does not list those statuses itself. */
function withServerProblems(paths: OpenApiObject): OpenApiObject {
  const methods = new Set(['get', 'put', 'post', 'delete', 'patch']);
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item as OpenApiObject).map(([method, op]) => {
          if (!methods.has(method)) return [method, op];
          const operation = op as OpenApiObject;
          const responses = operation.responses as Record<string, OpenApiObject>;
          return [method, { ...operation, responses: { ...serverProblems(path), ...responses } }];
        }),
      ),
    ]),
  );
}

/**
 * Assembles a document (every operation gets {@link serverProblems} it does not list) and replaces every nested
 * occurrence of a named schema object by a `$ref` to its component, so the JSON stays readable while the TS objects
 * stay self-contained for ajv.
 */
export function assemble(doc: OpenApiObject, schemas: Record<string, JsonSchema>): OpenApiObject {
  if (doc.paths) doc = { ...doc, paths: withServerProblems(doc.paths as OpenApiObject) };
  const names = new Map<object, string>();
  for (const [name, schema] of Object.entries(schemas)) {
    if (!names.has(schema)) names.set(schema, name);
  }
  const copy = (value: unknown, root: object | undefined): unknown => {
    if (Array.isArray(value)) return value.map((v) => copy(v, undefined));
    if (value === null || typeof value !== 'object') return value;
    const name = names.get(value);
    if (name && value !== root) return { $ref: `#/components/schemas/${name}` };
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v, undefined)]));
  };
  const components = (doc.components as OpenApiObject | undefined) ?? {};
  const out = copy({ ...doc, components: { ...components, schemas: {} } }, undefined) as OpenApiObject;
  const outComponents = out.components as OpenApiObject;
  outComponents.schemas = Object.fromEntries(Object.entries(schemas).map(([n, s]) => [n, copy(s, s)]));
  return out;
}

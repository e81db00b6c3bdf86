import { randomUUID } from 'node:crypto';
import { parse as parseQueryString } from 'node:querystring';
import { bodyValidator, type JsonSchema, openApiDocuments, queryValidator } from '@cc/contracts';

// The bad-input sweep's cases, derived from the OpenAPI documents @cc/contracts exports, so a new endpoint,
// parameter or body field is swept without editing this file. Every case is labelled by an oracle: the
// contract's own validator (the same ajv schemas the services use) decides whether the mutated request
// breaks the contract; one that does must be refused with a 4xx problem+json. A mutation the contract
// accepts (an emoji in a free-text name) must still never cause a 5xx. Lone surrogates are refused by rule:
// they cannot be stored as UTF-8 without being silently changed.

/** How a case authenticates. */
export type Auth =
  | { kind: 'scope'; scope: string }
  | { kind: 'operator' }
  | { kind: 'v0' }
  | { kind: 'client-basic' }
  | { kind: 'v0-basic' }
  | { kind: 'none' };

/** A parameter of an operation. */
export interface Param {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

/** One operation of a document. */
export interface Operation {
  doc: string;
  method: string;
  path: string;
  operationId: string;
  auth: Auth;
  pathParams: Param[];
  queryParams: Param[];
  body?: { schema: JsonSchema; example: unknown; required: boolean; form: boolean };
  /** Another operation of the same method and path spelt in another case (Invoke/invoke): swept lightly. */
  alias: boolean;
  /** The success answer is an endless `text/event-stream`: only requests that must be refused are swept. */
  streaming: boolean;
}

/** What a case must get. */
export type Expectation = 'reject' | 'no-5xx';

/** One request of the sweep. */
export interface Case {
  op: Operation;
  /** The part of the request the case breaks. */
  part: 'path' | 'query' | 'body' | 'token';
  what: string;
  method: string;
  path: string;
  body?: string | Buffer;
  contentType?: string;
  /** Sent without Content-Length, in chunks. */
  chunked?: boolean;
  headers?: Record<string, string>;
  expect: Expectation;
}

/** Odd unicode: right-to-left override, zero-width characters, emoji sequences, combining marks, lone surrogates. */
export const odd = {
  rtl: '\u202eevil\u202c',
  zeroWidth: 'a\u200bb\u200c\u200d\ufeff',
  emoji: '😀👩‍👩‍👧‍👦🏳️‍🌈',
  combining: 'e\u0301\u0302\u0303\u0304',
  loneHigh: '\ud800',
  loneLow: '\udfff',
  /** 5,200 code points mixing all of the above: longer than any bounded string of the contracts. */
  long: '\u202e\u200b😀a'.repeat(1300),
};

const hasLoneSurrogate = (s: string): boolean => /\p{Surrogate}/u.test(s);
const containsLoneSurrogate = (v: unknown): boolean =>
  typeof v === 'string'
    ? hasLoneSurrogate(v)
    : Array.isArray(v)
      ? v.some(containsLoneSurrogate)
      : v !== null && typeof v === 'object'
        ? Object.entries(v).some(([k, x]) => hasLoneSurrogate(k) || containsLoneSurrogate(x))
        : false;

type Doc = Record<string, unknown> & { components?: { schemas?: Record<string, JsonSchema> } };

/** The schema with every `#/components/schemas/*` reference inlined (ajv needs no document context then). */
function deref(doc: Doc, schema: unknown, depth = 0): JsonSchema {
  if (depth > 50) throw new Error('schema nesting too deep (recursive $ref?)');
  if (Array.isArray(schema)) return schema.map((s) => deref(doc, s, depth + 1)) as unknown as JsonSchema;
  if (schema === null || typeof schema !== 'object') return schema as JsonSchema;
  const ref = (schema as { $ref?: string }).$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '');
    const target = doc.components?.schemas?.[name];
    if (!target) throw new Error(`unresolved ${ref}`);
    return deref(doc, target, depth + 1);
  }
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      k === 'examples' || k === 'default' || k === 'const' || k === 'enum' ? v : deref(doc, v, depth + 1),
    ]),
  ) as JsonSchema;
}

function authOf(security: unknown, path: string): Auth {
  const list = (security ?? []) as Record<string, string[]>[];
  if (path === '/admin/accounts') return { kind: 'operator' };
  for (const req of list) {
    if (req.oauth2?.[0]) return { kind: 'scope', scope: req.oauth2[0] };
    if (req.v0Token) return { kind: 'v0' };
    if (req.v0Basic) return { kind: 'v0-basic' };
    if (req.clientBasic) return { kind: 'client-basic' };
  }
  return { kind: 'none' };
}

/** Every operation of every OpenAPI document of @cc/contracts. */
export function operations(): Operation[] {
  const out: Operation[] = [];
  const seen = new Set<string>();
  for (const [docName, raw] of Object.entries(openApiDocuments)) {
    const doc = raw as Doc;
    for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, unknown>>)) {
      for (const [method, rawOp] of Object.entries(item)) {
        const op = rawOp as {
          operationId: string;
          responses?: Record<string, { content?: Record<string, unknown> }>;
          security?: unknown;
          parameters?: { in: string; name: string; required?: boolean; schema: unknown }[];
          requestBody?: {
            required?: boolean;
            content: Record<
              string,
              { schema: unknown; examples?: Record<string, { value: unknown }>; example?: unknown }
            >;
          };
        };
        const params = (where: string) =>
          (op.parameters ?? [])
            .filter((p) => p.in === where)
            .map((p) => ({ name: p.name, schema: deref(doc, p.schema), required: p.required === true }));
        let body: Operation['body'];
        if (op.requestBody) {
          const [type, media] = Object.entries(op.requestBody.content)[0] as [
            string,
            { schema: unknown; examples?: Record<string, { value: unknown }>; example?: unknown },
          ];
          const example = media.examples ? Object.values(media.examples)[0]?.value : media.example;
          body = {
            schema: deref(doc, media.schema),
            example,
            required: op.requestBody.required !== false,
            form: type === 'application/x-www-form-urlencoded',
          };
        }
        const key = `${method} ${path.toLowerCase()}`;
        out.push({
          doc: docName,
          method: method.toUpperCase(),
          path,
          operationId: op.operationId,
          auth: authOf(op.security, path),
          pathParams: params('path'),
          queryParams: params('query'),
          ...(body ? { body } : {}),
          alias: seen.has(key),
          streaming: Object.keys(op.responses?.['200']?.content ?? {}).includes('text/event-stream'),
        });
        seen.add(key);
      }
    }
  }
  return out;
}

/** A value the schema accepts, for the parts of a request a case does not break. */
export function validValue(schema: JsonSchema, name = ''): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum.find((v) => v !== null);
  if (schema.default !== undefined) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (schema.pattern?.includes('[0-9A-Fa-f]{8}')) return randomUUID();
  if (schema.format === 'date-time') return '2024-05-01T00:00:00Z';
  if (name === 'accountKey') return 'e2e-sweep-absent';
  switch (type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array': {
      const n = schema.minItems ?? 0;
      return Array.from({ length: n }, () => validValue((schema.items ?? {}) as JsonSchema));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const req of schema.required ?? []) {
        out[req] = validValue((schema.properties?.[req] ?? {}) as JsonSchema, req);
      }
      return out;
    }
    default:
      return schema.maxLength && schema.maxLength < 20 ? 'x' : 'e2e-sweep-absent';
  }
}

/** The base body a case mutates: the document's first example, made safe to send, or a generated one. */
function baseBody(op: Operation): unknown {
  const body = op.body as NonNullable<Operation['body']>;
  let base = body.example !== undefined ? structuredClone(body.example) : validValue(body.schema);
  if (op.operationId.startsWith('register') && base && typeof base === 'object') {
    // An allowlisted literal address: no DNS lookup, so a valid mutation is answered the same everywhere.
    base = { ...(base as object), endpoint: 'https://127.0.0.1:9/e2e-sweep' };
  }
  return base;
}

function oracleBody(op: Operation): (value: unknown) => boolean {
  const validate = bodyValidator((op.body as NonNullable<Operation['body']>).schema);
  return (value) => validate(structuredClone(value)).ok;
}

function oracleParams(params: Param[]): (values: Record<string, unknown>) => boolean {
  const schema: JsonSchema = {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
    required: params.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
  const validate = queryValidator(schema);
  return (values) => validate(values).ok;
}

function fillPath(op: Operation, override?: { name: string; raw: string }): string {
  return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (override?.name === name) return override.raw;
    const param = op.pathParams.find((p) => p.name === name) as Param;
    const value = op.auth.kind === 'v0' && name === 'accountKey' ? v0AccountKey : validValue(param.schema, name);
    return encodeURIComponent(String(value));
  });
}

/** The demo v0 account key (services/gateway/README.md). */
export const v0AccountKey = process.env.CC_DEMO_V0_ACCOUNT_KEY ?? 'demo';

function baseQuery(op: Operation): Record<string, string> {
  const q: Record<string, string> = {};
  for (const p of op.queryParams) if (p.required) q[p.name] = String(validValue(p.schema, p.name));
  return q;
}

const enc = encodeURIComponent;
const guidExample = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

/** Raw (already percent-encoded) path segments that break a parameter or the path itself. */
const pathSegments: [string, string][] = [
  ['not a GUID', 'not-a-guid'],
  ['GUID with a non-hex digit', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4g'],
  ['GUID + zero-width space', enc(`${guidExample}\u200b`)],
  ['RTL override + GUID', enc(`\u202e${guidExample}`)],
  ['emoji', enc(odd.emoji)],
  ['5000 characters', 'x'.repeat(5000)],
  ['600 odd unicode characters', enc(odd.long.slice(0, 600))],
  ['lone surrogate (CESU-8 bytes)', '%ED%A0%80'],
  ['invalid UTF-8', '%C3%28'],
  ['control character', '%01'],
  ['NUL', '%00'],
  ['dot-dot segment', '..'],
  ['encoded slash', 'a%2Fb'],
  ['backslash', 'a%5Cb'],
  ['$-operator JSON', enc('{"$ne":null}')],
  ['$-prefixed', enc('$where')],
  ['dotted', 'a.b.c'],
];

function pathCases(op: Operation): Case[] {
  const cases: Case[] = [];
  const valid = oracleParams(op.pathParams);
  for (const param of op.pathParams) {
    for (const [what, raw] of pathSegments) {
      let decoded: string | undefined;
      try {
        decoded = decodeURIComponent(raw);
      } catch {
        decoded = undefined;
      }
      const values = Object.fromEntries(op.pathParams.map((p) => [p.name, String(validValue(p.schema, p.name))]));
      const breaksPath = decoded === undefined || /[/\\]/.test(decoded) || decoded === '..' || decoded === '.';
      const ok =
        !breaksPath && valid({ ...values, [param.name]: decoded as string }) && !hasLoneSurrogate(decoded ?? '');
      cases.push({
        op,
        part: 'path',
        what: `path {${param.name}}: ${what}`,
        method: op.method,
        path: fillPath(op, { name: param.name, raw }) + queryString(baseQuery(op)),
        ...jsonBodyOf(op),
        expect: ok ? 'no-5xx' : 'reject',
      });
    }
  }
  return cases;
}

function queryString(q: Record<string, string>, extra = ''): string {
  const s = Object.entries(q)
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .join('&');
  const all = [s, extra].filter(Boolean).join('&');
  return all ? `?${all}` : '';
}

/** A valid body for a case that breaks something else (path, query). */
function jsonBodyOf(op: Operation): Pick<Case, 'body' | 'contentType'> {
  if (!op.body || op.body.form || !op.body.required) return {};
  return { body: JSON.stringify(baseBody(op)), contentType: 'application/json' };
}

/** Raw query values that break a parameter of the given schema. */
function badQueryValues(schema: JsonSchema): [string, string][] {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  const common: [string, string][] = [
    ['empty', ''],
    ['5000 characters', 'x'.repeat(5000)],
    ['odd unicode', enc(odd.long.slice(0, 400))],
    ['control character', '%01'],
    ['invalid UTF-8', '%ED%A0%80'],
  ];
  if (type === 'integer' || type === 'number') {
    return [
      ...common,
      ['not a number', 'abc'],
      ['fraction', '1.5'],
      ['negative', '-1'],
      ['zero', '0'],
      ['huge', '99999999999999999999999'],
      ['emoji', enc('😀')],
      ['digit + zero-width space', enc('1\u200b')],
    ];
  }
  if (type === 'boolean') return [...common, ['not a boolean', 'maybe'], ['number', '2']];
  if (schema.format === 'date-time') {
    return [
      ...common,
      ['30 February', '2024-02-30T00:00:00Z'],
      ['hour 25', '2024-05-01T25:00:00Z'],
      ['no time zone', '2024-05-01T08:00:00'],
      ['words', 'yesterday'],
      ['RTL override', enc('\u202e2024-05-01T08:00:00Z')],
      ['zero-width space', enc('2024-05-01T08:00:00Z\u200b')],
    ];
  }
  if (schema.enum) {
    const first = String(schema.enum[0]);
    return [
      ...common,
      ['enum + zero-width space', enc(`${first}\u200b`)],
      ['enum in other case', enc(first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase())],
      ['unknown value', 'no-such-value'],
    ];
  }
  if (schema.pattern?.includes('[0-9A-Fa-f]{8}')) {
    return [...common, ['not a GUID', 'not-a-guid'], ['GUID + zero-width space', enc(`${guidExample}\u200b`)]];
  }
  return common;
}

function queryCases(op: Operation): Case[] {
  if (!op.queryParams.length) return [];
  const cases: Case[] = [];
  const valid = oracleParams(op.queryParams);
  const base = baseQuery(op);
  const path = fillPath(op);
  const push = (what: string, raw: string) => {
    const parsed = parseQueryString(raw.replace(/^\?/, '')) as Record<string, unknown>;
    const ok = valid(parsed);
    cases.push({
      op,
      part: 'query',
      what: `query: ${what}`,
      method: op.method,
      path: path + (raw ? `?${raw}` : ''),
      expect: ok ? 'no-5xx' : 'reject',
    });
  };
  const baseRaw = queryString(base).replace(/^\?/, '');
  const withBase = (extra: string) => [baseRaw, extra].filter(Boolean).join('&');
  const first = op.queryParams[0] as Param;
  push('unknown parameter', withBase('unexpected=1'));
  push('$-operator bracket key', withBase(`${first.name}[$ne]=x`));
  push('$-prefixed key', withBase('$where=1'));
  push('dotted key', withBase('a.b=1'));
  push(
    `${first.name} given twice`,
    withBase(
      `${first.name}=${enc(String(validValue(first.schema, first.name)))}&${first.name}=${enc(String(validValue(first.schema, first.name)))}`,
    ),
  );
  for (const p of op.queryParams) {
    if (p.required) {
      const rest = { ...base };
      delete rest[p.name];
      push(`${p.name} missing`, queryString(rest).replace(/^\?/, ''));
    }
    for (const [what, value] of badQueryValues(p.schema)) {
      const rest = { ...base };
      delete rest[p.name];
      push(
        `${p.name}: ${what}`,
        [queryString(rest).replace(/^\?/, ''), `${enc(p.name)}=${value}`].filter(Boolean).join('&'),
      );
    }
  }
  return cases;
}

type Mutation = { what: string; value: unknown };

/** Every mutation of a JSON value, at every depth (arrays: their first eight items). */
function mutations(value: unknown, pointer = ''): Mutation[] {
  const at = pointer || '(root)';
  const out: Mutation[] = [];
  const wrap = (inner: Mutation[], rebuild: (v: unknown) => unknown) =>
    inner.map((m) => ({ what: m.what, value: rebuild(m.value) }));
  if (typeof value === 'string') {
    const guidLike = /^[0-9a-f]{8}-/i.test(value);
    const dateLike = /^\d{4}-\d{2}-\d{2}T/.test(value);
    out.push(
      { what: `${at}: number instead of string`, value: 12345 },
      { what: `${at}: boolean instead of string`, value: true },
      { what: `${at}: $-operator object`, value: { $ne: null } },
      { what: `${at}: $gt operator`, value: { $gt: '' } },
      { what: `${at}: 5001 characters`, value: 'x'.repeat(5001) },
      { what: `${at}: 5200 odd unicode characters`, value: odd.long },
      { what: `${at}: lone high surrogate`, value: `${value}${odd.loneHigh}` },
      { what: `${at}: lone low surrogate`, value: `${odd.loneLow}${value}` },
      { what: `${at}: RTL override`, value: `${odd.rtl}${value}` },
      { what: `${at}: zero-width characters`, value: `${value}${odd.zeroWidth}` },
      { what: `${at}: emoji`, value: `${odd.emoji}${value}` },
      { what: `${at}: combining marks`, value: `${value}${odd.combining}` },
      { what: `${at}: empty`, value: '' },
    );
    if (guidLike) out.push({ what: `${at}: invalid GUID`, value: `${value.slice(0, -1)}g` });
    if (dateLike) {
      out.push(
        { what: `${at}: 30 February`, value: '2024-02-30T00:00:00Z' },
        { what: `${at}: no time zone`, value: '2024-05-01T08:00:00' },
        { what: `${at}: not a date`, value: 'next tuesday' },
      );
    }
    return out;
  }
  if (typeof value === 'number') {
    return [
      { what: `${at}: string instead of number`, value: String(value) },
      { what: `${at}: fraction`, value: value + 0.5 },
      { what: `${at}: negative`, value: -1 },
      { what: `${at}: 1e300`, value: 1e300 },
      { what: `${at}: null`, value: null },
    ];
  }
  if (typeof value === 'boolean') {
    return [
      { what: `${at}: string instead of boolean`, value: String(value) },
      { what: `${at}: number instead of boolean`, value: 1 },
    ];
  }
  if (Array.isArray(value)) {
    out.push(
      { what: `${at}: string instead of array`, value: 'x' },
      { what: `${at}: object instead of array`, value: {} },
      { what: `${at}: 1001 items`, value: Array.from({ length: 1001 }, () => value[0] ?? 'x') },
    );
    value.slice(0, 8).forEach((item, i) => {
      out.push(...wrap(mutations(item, `${pointer}/${i}`), (v) => value.map((x, j) => (j === i ? v : x))));
    });
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    out.push(
      { what: `${at}: extra field`, value: { ...obj, unexpectedField: 1 } },
      { what: `${at}: $where key`, value: { ...obj, $where: 'sleep(1000)' } },
      { what: `${at}: $set key`, value: { ...obj, $set: { admin: true } } },
      { what: `${at}: dotted key`, value: { ...obj, 'a.b': 1 } },
      {
        what: `${at}: __proto__ key`,
        value: JSON.parse(`{"__proto__":{"polluted":true},${JSON.stringify(obj).slice(1)}`.replace(/,}$/, '}')),
      },
    );
    if (pointer) {
      out.push(
        { what: `${at}: string instead of object`, value: 'x' },
        { what: `${at}: array instead of object`, value: [] },
      );
    }
    for (const key of Object.keys(obj)) {
      const { [key]: _removed, ...rest } = obj;
      out.push({ what: `${at}: without ${key}`, value: rest });
      out.push(...wrap(mutations(obj[key], `${pointer}/${key}`), (v) => ({ ...obj, [key]: v })));
    }
  }
  return out;
}

/** Bodies every JSON operation must refuse before looking at them: not JSON, not UTF-8 JSON, too large. */
function transportCases(op: Operation, path: string): Case[] {
  const json = (body: string | Buffer, what: string, contentType = 'application/json'): Case => ({
    op,
    part: 'body',
    what: `body: ${what}`,
    method: op.method,
    path,
    body,
    contentType,
    expect: 'reject',
  });
  const valid = JSON.stringify(baseBody(op));
  const padded = (bytes: number) => JSON.stringify({ padding: 'x'.repeat(bytes) });
  return [
    json('{"requests": [', 'malformed JSON (truncated)'),
    json('{"a": 1,}', 'malformed JSON (trailing comma)'),
    json("{'a': 1}", 'malformed JSON (single quotes)'),
    json('nul', 'malformed JSON (bad literal)'),
    json(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 'invalid UTF-8 bytes'),
    json(valid, 'text/plain content type', 'text/plain'),
    json(valid, 'form content type', 'application/x-www-form-urlencoded'),
    json(valid, 'XML content type', 'application/xml'),
    json(valid, 'UTF-16 charset', 'application/json; charset=utf-16'),
    json('[]', 'array instead of object'),
    json('"text"', 'string instead of object'),
    json('42', 'number instead of object'),
    json('null', 'null instead of object'),
    json(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, 'object nested 5000 deep'),
    json(padded(300 * 1024), '300 KB body (over the services’ 256 KB)'),
    json(padded(2 * 1024 * 1024), '2 MB body (over the gateway’s 1 MB)'),
    { ...json(padded(2 * 1024 * 1024), '2 MB chunked body (no Content-Length)'), chunked: true },
  ];
}

function bodyCases(op: Operation): Case[] {
  if (!op.body || op.body.form) return [];
  const path = fillPath(op) + queryString(baseQuery(op));
  const cases = transportCases(op, path);
  if (op.alias) return cases;
  const base = baseBody(op);
  const valid = oracleBody(op);
  if (op.body.required) {
    cases.push({
      op,
      part: 'body',
      what: 'body: none',
      method: op.method,
      path,
      expect: valid({}) ? 'no-5xx' : 'reject',
    });
  }
  for (const m of mutations(base)) {
    const ok = valid(m.value) && !containsLoneSurrogate(m.value);
    cases.push({
      op,
      part: 'body',
      what: `body ${m.what}`,
      method: op.method,
      path,
      body: JSON.stringify(m.value),
      contentType: 'application/json',
      expect: ok ? 'no-5xx' : 'reject',
    });
  }
  return cases;
}

/** Cases of the form-encoded token endpoints (RFC 6749 error bodies); every client id is random, so no lockout. */
function tokenCases(op: Operation): Case[] {
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const someone = () => `e2e-sweep-${randomUUID()}`;
  const c = (
    what: string,
    body: string | Buffer | undefined,
    headers: Record<string, string> = {},
    contentType = 'application/x-www-form-urlencoded',
    path = op.path,
  ): Case => ({
    op,
    part: 'token',
    what: `token: ${what}`,
    method: 'POST',
    path,
    ...(body !== undefined ? { body, contentType } : {}),
    headers,
    expect: 'reject',
  });
  const cc = { grant_type: 'client_credentials' };
  if (op.auth.kind === 'v0-basic') {
    return [
      c('no credentials', form(cc)),
      c('unknown account key', form(cc), { authorization: basic(someone(), 'wrong') }),
      c('malformed Basic header', form(cc), { authorization: 'Basic !!!not-base64' }),
      c('5000-character account key', form(cc), { authorization: basic('k'.repeat(5000), 'x') }),
      c('odd unicode account key', form(cc), { authorization: basic(odd.long.slice(0, 200), 'x') }),
      c('grant_type password', form({ grant_type: 'password' }), { authorization: basic(someone(), 'x') }),
      c('JSON body', JSON.stringify(cc), { authorization: basic(someone(), 'x') }, 'application/json'),
      c('2 MB body', form({ ...cc, pad: 'x'.repeat(2 * 1024 * 1024) }), { authorization: basic(someone(), 'x') }),
    ];
  }
  return [
    c('no body', undefined, { authorization: basic(someone(), 'wrong') }),
    c('grant_type missing', form({ scope: 'stats', client_id: someone(), client_secret: 'x' })),
    c(
      'grant_type password',
      form({ grant_type: 'password', scope: 'stats', client_id: someone(), client_secret: 'x' }),
    ),
    c('scope missing', form({ ...cc, client_id: someone(), client_secret: 'x' })),
    c('two scopes', form({ ...cc, scope: 'admin stats', client_id: someone(), client_secret: 'x' })),
    c('unknown scope', form({ ...cc, scope: 'root', client_id: someone(), client_secret: 'x' })),
    c('scope with zero-width space', form({ ...cc, scope: 'stats\u200b', client_id: someone(), client_secret: 'x' })),
    c('unknown client', form({ ...cc, scope: 'stats', client_id: someone(), client_secret: 'wrong' })),
    c('Basic and body credentials', form({ ...cc, scope: 'stats', client_id: someone(), client_secret: 'x' }), {
      authorization: basic(someone(), 'x'),
    }),
    c(
      'secret in the URL',
      form({ ...cc, scope: 'stats' }),
      {},
      undefined,
      `${op.path}?client_id=${someone()}&client_secret=x`,
    ),
    c('5000-character client id', form({ ...cc, scope: 'stats', client_id: 'c'.repeat(5000), client_secret: 'x' })),
    c('odd unicode client id', form({ ...cc, scope: 'stats', client_id: odd.long.slice(0, 150), client_secret: 'x' })),
    c(
      'lone surrogate (CESU-8) client id',
      `grant_type=client_credentials&scope=stats&client_id=%ED%A0%80&client_secret=x`,
    ),
    c('$-operator key', `grant_type=client_credentials&scope=stats&client_id[$ne]=x&client_secret[$ne]=x`),
    c('dotted key', `grant_type=client_credentials&scope=stats&client.id=x&client_secret=x`),
    c('malformed Basic header', form({ ...cc, scope: 'stats' }), { authorization: 'Basic !!!not-base64' }),
    c(
      'JSON body',
      JSON.stringify({ ...cc, scope: 'stats', client_id: someone(), client_secret: 'x' }),
      {},
      'application/json',
    ),
    c('text/plain body', form({ ...cc, scope: 'stats', client_id: someone(), client_secret: 'x' }), {}, 'text/plain'),
    c(
      '2 MB body',
      form({ ...cc, scope: 'stats', client_id: someone(), client_secret: 'x', pad: 'x'.repeat(2 * 1024 * 1024) }),
    ),
  ];
}

/** Every case of one operation. */
export function casesOf(op: Operation): Case[] {
  if (op.body?.form) return [...tokenCases(op), ...queryCases(op), ...pathCases(op)];
  const all = [...pathCases(op), ...queryCases(op), ...bodyCases(op)];
  // An accepted request to an event stream never ends: the sweep would wait for it until its timeout.
  return op.streaming ? all.filter((c) => c.expect === 'reject') : all;
}

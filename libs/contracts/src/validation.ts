import Ajv2020, { type ErrorObject, type FormatDefinition, type Options, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats';
import { type FastCheck, fastCheckOf } from './fast-check';
import type { JsonSchema } from './json-schema';
import { type EventType, eventSchemas } from './schemas/events/index';

/** One violation of a schema: an RFC 6901 pointer naming the field and a precise message. */
export interface Violation {
  pointer: string;
  message: string;
}

/** The outcome of a validation: the (defaulted or coerced) value, or every violation. */
export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: Violation[] };

/**
 * A compiled validator for one schema. `wellFormed`: the caller knows every string and member name of `data` is
 * well-formed Unicode without NUL (it parsed `data` from a text {@link jsonTextWellFormed} passed), so the walk
 * looking for them is skipped (bodies only).
 */
export type Validator<T> = (data: unknown, wellFormed?: boolean) => ValidationResult<T>;

/**
 * Whether every string and member name `JSON.parse(text)` returns is well-formed Unicode without NUL, for a `text`
 * decoded from UTF-8 (decoding replaces ill-formed bytes, JSON refuses a raw NUL or control character in a string):
 * true when it holds no `\u` escape, the only way to write a lone surrogate or a NUL in JSON. A fast check of the
 * text (consumers parse every message) instead of a walk of the parsed value; false only means "walk it".
 */
export function jsonTextWellFormed(text: string): boolean {
  return !text.includes('\\u');
}

function createAjv(options: Options): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    // Union types (`['string', 'null']`) are how OpenAPI 3.1 writes nullable; allow them, keep the rest strict.
    allowUnionTypes: true,
    // Required properties are often declared in sibling if/then branches; ajv cannot see those.
    strictRequired: false,
    // The error formatter reads each failing schema's `x-message`.
    verbose: true,
    ...options,
  });
  addFormats(ajv);
  ajv.addFormat('date-time', { ...fullDateTime, validate: dateTime } as FormatDefinition<string>);
  ajv.addKeyword('x-message');
  return ajv;
}

const fullDateTime = fullFormats['date-time'] as { validate: (s: string) => boolean; compare?: unknown };
const daysIn = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number of `n` digits at `at`, or -1 if one is not a digit. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

const dash = 45;
const colon = 58;
const dot = 46;
const upperT = 84;
const upperZ = 90;

/**
 * Epoch ms of the events' shape (`2024-05-01T08:15:00.000Z`) if `s` has it and names a possible date, else NaN.
 * Character codes, not `s[i]` (each of those a one-character string), and days counted from the civil date (the
 * proleptic Gregorian calendar, as `Date.UTC`) instead of a call to `Date.UTC`: consumers read several per event.
 */
function eventTime(s: string): number {
  if (
    s.length !== 24 ||
    s.charCodeAt(4) !== dash ||
    s.charCodeAt(7) !== dash ||
    s.charCodeAt(10) !== upperT ||
    s.charCodeAt(13) !== colon ||
    s.charCodeAt(16) !== colon ||
    s.charCodeAt(19) !== dot ||
    s.charCodeAt(23) !== upperZ
  ) {
    return Number.NaN;
  }
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  const milli = digits(s, 20, 3);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (
    year < 100 || // Date.UTC reads years 0-99 as 1900-1999: those (and non-digits) take the slow path
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > (month === 2 && leap ? 29 : (daysIn[month] as number)) ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59 ||
    milli < 0
  ) {
    return Number.NaN;
  }
  // Days since 1970-01-01 of a civil date (years from March, so the leap day is the year's last).
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146_097 + doe - 719_468;
  return days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + milli;
}

/**
 * Epoch milliseconds of a time in the shape every event time has (`2024-05-01T08:15:00.000Z`), read field by field
 * (no regex, split or `Date.parse`: consumers read several per event); undefined for any other string or an
 * impossible date. The one reader of that shape: the validator's `date-time` check and consumers' time arithmetic.
 */
export function eventTimeMs(s: string): number | undefined {
  const t = eventTime(s);
  return Number.isNaN(t) ? undefined : t;
}

/** Whether {@link eventTimeMs} reads a time: the events' shape, a possible date. */
export function isEventTime(s: string): boolean {
  const t = eventTime(s);
  return !Number.isNaN(t);
}

/**
 * RFC 3339 date-time, as ajv-formats checks it: the events' own shape by {@link eventTimeMs}; any other string
 * (offsets, other precisions, a leap second, garbage) gets ajv-formats' own check.
 */
function dateTime(s: string): boolean {
  return isEventTime(s) || fullDateTime.validate(s);
}

/** Bodies and event data: defaults applied in place (`useDefaults`), no type coercion. */
const bodyAjv = createAjv({ useDefaults: true });
/** Query strings and path parameters: strings coerced to the schema's types, defaults applied. */
const queryAjv = createAjv({ useDefaults: true, coerceTypes: 'array' });

const bodyCache = new WeakMap<object, ValidateFunction>();
const fastCache = new WeakMap<object, FastCheck | null>();

/** The schema's {@link fastCheckOf} (compiled once per schema), if it has one. */
function fastCheck(schema: JsonSchema): FastCheck | undefined {
  let fast = fastCache.get(schema);
  if (fast === undefined) {
    fast = fastCheckOf(schema, isEventTime) ?? null;
    fastCache.set(schema, fast);
  }
  return fast ?? undefined;
}
const queryCache = new WeakMap<object, ValidateFunction>();

function compiled(ajv: Ajv2020, cache: WeakMap<object, ValidateFunction>, schema: JsonSchema): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(schema as object);
    cache.set(schema, fn);
  }
  return fn;
}

/** A validator for a JSON body or event data (compiled once per schema); it applies schema defaults to the data in place. */
export function bodyValidator<T>(schema: JsonSchema, options: ViolationOptions = {}): Validator<T> {
  const fn = compiled(bodyAjv, bodyCache, schema);
  const fast = fastCheck(schema);
  return (data, wellFormed) => {
    const unicode = wellFormed === true ? none : illFormedStrings(data);
    // Data the schema certainly accepts (and no default to apply) skips ajv; anything else gets ajv's verdict.
    if (!unicode.length && fast?.(data)) return { ok: true, value: data as T };
    const valid = fn(data);
    if (valid && !unicode.length) return { ok: true, value: data as T };
    return { ok: false, errors: [...unicode, ...(valid ? [] : toViolations(fn.errors ?? [], options))] };
  };
}

const none: Violation[] = [];

/** A lone UTF-16 surrogate: JSON's `\ud800` escapes parse to one, and it has no UTF-8 encoding. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Strings (values and member names) that are not well-formed Unicode: stores, Kafka consumers and
 * providers would each mangle or reject them differently, so a body holding one is refused whole.
 * Walks with its own stack: a body may nest thousands of levels deep.
 */
function illFormedStrings(data: unknown): Violation[] {
  // Almost every body is clean: check that without building pointers (the walk below cost consumers ~10 µs an event).
  if (wellFormed(data, 0)) return [];
  const out: Violation[] = [];
  const stack: [unknown, string, string?][] = [[data, '']];
  while (stack.length && out.length < 10) {
    const [value, pointer, key] = stack.pop() as [unknown, string, string?];
    if (key !== undefined && loneSurrogate.test(key)) {
      out.push({ pointer, message: 'member name must be well-formed Unicode (it holds a lone surrogate)' });
    }
    if (key?.includes('\u0000')) out.push({ pointer, message: nulMessage('member name') });
    if (typeof value === 'string') {
      if (loneSurrogate.test(value))
        out.push({ pointer, message: 'must be well-formed Unicode (it holds a lone surrogate)' });
      else if (value.includes('\u0000')) out.push({ pointer, message: nulMessage('value') });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${pointer}/${i}`]);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i] as [string, unknown];
        stack.push([v, `${pointer}/${escapePointer(k)}`, k]);
      }
    }
  }
  return out;
}

const badString = (s: string): boolean => loneSurrogate.test(s) || s.includes('\u0000');

/**
 * Whether every string and member name is well-formed and NUL-free, without allocating. Deep bodies (past 64
 * levels) are left to the stack-based walk, which cannot overflow.
 */
function wellFormed(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return !badString(value);
  if (value === null || typeof value !== 'object') return true;
  if (depth > 64) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!wellFormed(value[i], depth + 1)) return false;
    return true;
  }
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    if (badString(k) || !wellFormed((value as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return true;
}

/** A validator for query strings or path parameters (compiled once per schema); it returns a coerced, defaulted copy. */
export function queryValidator<T>(
  schema: JsonSchema,
  options: ViolationOptions = { rootLabel: 'query' },
): Validator<T> {
  const fn = compiled(queryAjv, queryCache, schema);
  const numeric = numericProperties(schema);
  return (data) => {
    const copy = data !== null && typeof data === 'object' && !Array.isArray(data) ? { ...data } : data;
    const notDecimal = [...nulStrings(copy), ...(numeric.size ? nonDecimalNumbers(copy, numeric) : [])];
    if (notDecimal.length) return { ok: false, errors: notDecimal };
    return fn(copy) ? { ok: true, value: copy as T } : { ok: false, errors: toViolations(fn.errors ?? [], options) };
  };
}

const decimalInteger = /^-?\d{1,20}$/;
const decimalNumber = /^-?\d{1,20}(\.\d{1,20})?$/;

/** The top-level properties typed integer or number, with the decimal form their string must have. */
function numericProperties(schema: JsonSchema): Map<string, 'integer' | 'number'> {
  const out = new Map<string, 'integer' | 'number'>();
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const types = ([] as unknown[]).concat((prop as JsonSchema).type ?? []);
    if (types.includes('integer')) out.set(key, 'integer');
    else if (types.includes('number')) out.set(key, 'number');
  }
  return out;
}

/**
 * Query numbers must be plain decimals: ajv's coercion is JavaScript's `Number()`, which reads `1e309` and `Infinity`
 * as Infinity (passing every bound), `0x10` as 16 and ` 2` as 2. Digits only keeps every value finite and exact.
 */
function nonDecimalNumbers(data: unknown, numeric: Map<string, 'integer' | 'number'>): Violation[] {
  if (data === null || typeof data !== 'object') return [];
  const out: Violation[] = [];
  for (const [key, kind] of numeric) {
    const value = (data as Record<string, unknown>)[key];
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && !(kind === 'integer' ? decimalInteger : decimalNumber).test(v))) {
      const pointer = `/${escapeSegment(key)}`;
      out.push({ pointer, message: `${key} must be ${kind === 'integer' ? 'a decimal integer' : 'a number'}` });
    }
  }
  return out;
}

/** U+0000 is valid JSON and URL text, but no store keeps it alike (PostgreSQL's jsonb refuses it): refused. */
function nulMessage(what: string): string {
  return `${what} must not contain U+0000 (NUL)`;
}

/** Query or path parameters holding U+0000 (e.g. `%00`), each named. */
function nulStrings(data: unknown): Violation[] {
  if (data === null || typeof data !== 'object') return [];
  const out: Violation[] = [];
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.includes('\u0000'))) {
      out.push({ pointer: `/${escapeSegment(key)}`, message: `${key} ${nulMessage('value')}` });
    }
  }
  return out;
}

/** Validates a JSON body against a schema, applying defaults in place. */
export function validateBody<T>(schema: JsonSchema, data: unknown): ValidationResult<T> {
  return bodyValidator<T>(schema)(data);
}

/** Validates query-string (or path) parameters against a schema, returning a coerced copy. */
export function validateQuery<T>(schema: JsonSchema, data: unknown): ValidationResult<T> {
  return queryValidator<T>(schema)(data);
}

/** Validates the data of one event type. */
export function validateEventData<T>(type: EventType, data: unknown): ValidationResult<T> {
  return bodyValidator<T>(eventSchemas[type])(data);
}

/** Keywords whose generic message (type, limit) is more precise than a schema's `x-message`. */
const boundKeywords = new Set([
  'type',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'additionalProperties',
  'unevaluatedProperties',
  'uniqueItems',
]);

const escapeSegment = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapeSegment = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** The name a message uses for the field at a pointer: `value`, `requests[0]`, or `body` at the root. */
function labelOf(pointer: string, rootLabel: string): string {
  const segments = pointer.split('/').slice(1).map(unescapeSegment);
  const last = segments.at(-1);
  if (last === undefined) return rootLabel;
  if (!/^\d+$/.test(last)) return last;
  const parent = segments.at(-2);
  return `${parent ?? rootLabel}[${last}]`;
}

const article = (type: string): string =>
  type === 'null' ? 'null' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type === 'number' ? 'number' : type}`;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function xMessage(error: ErrorObject): string | undefined {
  const parent = error.parentSchema as JsonSchema | undefined;
  return parent && typeof parent === 'object' ? parent['x-message'] : undefined;
}

function genericMessage(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'dependentRequired':
      return `is required when ${String(p.property)} is given`;
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const known = Object.keys((error.parentSchema as JsonSchema | undefined)?.properties ?? {});
      return known.length ? `is not allowed (allowed: ${known.join(', ')})` : 'is not allowed';
    }
    case 'type':
      return `must be ${String(p.type).split(',').map(article).join(' or ')}`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${String(p.allowedValue)}`;
    case 'maxLength':
      return `must be at most ${plural(p.limit as number, 'character')}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${plural(p.limit as number, 'character')}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return `must be greater than ${String(p.limit)}`;
    case 'multipleOf':
      return `must be a multiple of ${String(p.multipleOf)}`;
    case 'maxItems':
      return `must have at most ${plural(p.limit as number, 'item')}`;
    case 'minItems':
      return `must have at least ${plural(p.limit as number, 'item')}`;
    case 'maxProperties':
      return `must have at most ${plural(p.limit as number, 'property').replace('propertys', 'properties')}`;
    case 'minProperties':
      return `must have at least ${plural(p.limit as number, 'property').replace('propertys', 'properties')}`;
    case 'uniqueItems':
      return `must not contain duplicates (items ${String(p.j)} and ${String(p.i)} are equal)`;
    case 'pattern':
      return `must match the pattern ${String(p.pattern)}`;
    case 'format':
      return `must be a valid ${String(p.format)}`;
    case 'not':
    case 'false schema':
      return 'is not allowed';
    case 'oneOf':
    case 'anyOf':
      return 'must match one of the allowed forms';
    default:
      return error.message ?? 'is invalid';
  }
}

/** The pointer an error is about: the missing or extra property itself where there is one. */
function pointerOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  const base = error.instancePath;
  if (error.propertyName !== undefined) return `${base}/${escapeSegment(error.propertyName)}`;
  if (error.keyword === 'required' || error.keyword === 'dependentRequired') {
    return `${base}/${escapeSegment(String(p.missingProperty))}`;
  }
  if (error.keyword === 'additionalProperties') return `${base}/${escapeSegment(String(p.additionalProperty))}`;
  if (error.keyword === 'unevaluatedProperties') return `${base}/${escapeSegment(String(p.unevaluatedProperty))}`;
  return base;
}

function violationOf(error: ErrorObject, rootLabel: string): Violation {
  const pointer = pointerOf(error);
  const custom = boundKeywords.has(error.keyword) ? undefined : xMessage(error);
  const label =
    error.propertyName !== undefined ? `property name "${error.propertyName}"` : labelOf(pointer, rootLabel);
  return { pointer, message: `${label} ${custom ?? genericMessage(error)}` };
}

/** One report for a failed anyOf/oneOf: its x-message, a "give one of" for alternatives, or the closest branch. */
function foldComposite(error: ErrorObject, children: ErrorObject[], rootLabel: string): Violation[] {
  const custom = xMessage(error);
  const missing = children.filter((c) => c.keyword === 'required' && c.instancePath === error.instancePath);
  const allRequired = children.length > 0 && missing.length === children.length;
  if (custom || allRequired) {
    const first = missing[0];
    const pointer = allRequired && first ? pointerOf(first) : error.instancePath;
    const alternatives = missing.map((c) => String((c.params as { missingProperty: string }).missingProperty));
    const message = custom ?? `is required (give one of: ${alternatives.join(', ')})`;
    return [{ pointer, message: `${labelOf(pointer, rootLabel)} ${message}` }];
  }
  const byBranch = new Map<string, ErrorObject[]>();
  for (const c of children) {
    const branch = c.schemaPath.slice(error.schemaPath.length + 1).split('/')[0] ?? '';
    byBranch.set(branch, [...(byBranch.get(branch) ?? []), c]);
  }
  // A branch whose type matched the data is closer than one that failed on type; then fewer errors is closer.
  const typeMiss = (errs: ErrorObject[]) =>
    errs.some((c) => c.keyword === 'type' && c.instancePath === error.instancePath) ? 1 : 0;
  const closest = [...byBranch.values()].sort((a, b) => typeMiss(a) - typeMiss(b) || a.length - b.length)[0];
  const reported = (closest ?? []).filter((c) => c.keyword !== 'if');
  return reported.length ? reported.map((c) => violationOf(c, rootLabel)) : [violationOf(error, rootLabel)];
}

/** Options of {@link toViolations}. */
export interface ViolationOptions {
  /** How messages name the document root (default `body`). */
  rootLabel?: string;
}

/**
 * Turns ajv errors into one `{pointer, message}` per violation: pointers name the offending field (the missing or
 * extra property itself), messages are precise, and the noise of if/anyOf/oneOf/propertyNames wrappers is folded.
 */
export function toViolations(errors: readonly ErrorObject[], options: ViolationOptions = {}): Violation[] {
  const rootLabel = options.rootLabel ?? 'body';
  const consumed = new Set<ErrorObject>();
  const replacements = new Map<ErrorObject, Violation[]>();
  // Composite keywords (anyOf, oneOf) come after their children: fold the children into one report.
  for (const error of errors) {
    if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf') continue;
    const children = errors.filter(
      (e) =>
        e !== error &&
        !consumed.has(e) &&
        e.schemaPath.startsWith(`${error.schemaPath}/`) &&
        (e.instancePath === error.instancePath || e.instancePath.startsWith(`${error.instancePath}/`)),
    );
    for (const c of children) consumed.add(c);
    replacements.set(error, foldComposite(error, children, rootLabel));
  }
  const withPropertyName = new Set(
    errors.filter((e) => e.propertyName !== undefined).map((e) => `${e.instancePath}\u0000${e.propertyName}`),
  );
  const out: Violation[] = [];
  for (const error of errors) {
    if (consumed.has(error) || error.keyword === 'if') continue;
    const replacement = replacements.get(error);
    if (replacement) {
      out.push(...replacement);
      continue;
    }
    if (error.keyword === 'propertyNames') {
      const p = error.params as { propertyName?: string };
      if (withPropertyName.has(`${error.instancePath}\u0000${p.propertyName}`)) continue;
    }
    out.push(violationOf(error, rootLabel));
  }
  const seen = new Set<string>();
  return out.filter((v) => {
    const key = `${v.pointer}\u0000${v.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

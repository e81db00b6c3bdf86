import ucs2length from 'ajv/dist/runtime/ucs2length';
import type { JsonSchema } from './json-schema';
import { guidPattern } from './schemas/common';

/**
 * A quick yes for data a schema certainly accepts: `true` only where the strict validator (ajv) would accept it
 * too, `false` for anything else, which then takes the full validation (the verdict and its violations are ajv's).
 * Consumers validate every event: ajv's generated code spent most of its time in its code-point counter, the GUID
 * pattern and the date-time checks, which a valid event passes trivially (a string no longer than its limit in
 * UTF-16 units has no more code points; a time in the events' own shape is a valid date-time). Generated as one
 * function per schema, as ajv does, so that every property is read by its name (a property read by a computed key
 * cost a closure-per-keyword version of this more than ajv itself).
 */
export type FastCheck = (data: unknown) => boolean;

class Unsupported extends Error {}

/** Keywords that only annotate: they change no verdict. */
const annotations = new Set(['description', 'examples', 'title', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
const handled = new Set([
  'type',
  'const',
  'enum',
  'required',
  'properties',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'items',
  'minItems',
  'maxItems',
]);

type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';
const jsonTypes = new Set<JsonType>(['null', 'boolean', 'integer', 'number', 'string', 'array', 'object']);
const primitive = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

const hex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
/** `^<guidPattern>$` without the regex. */
function isGuid(s: string): boolean {
  if (s.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
    } else if (!hex(c)) return false;
  }
  return true;
}

const printablePattern = '^[^\\x00-\\x1F\\x7F-\\x9F]+$';
/** `^[^\x00-\x1F\x7F-\x9F]+$` without the regex. */
function isPrintable(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f)) return false;
  }
  return true;
}
const eventTimePattern = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';

/** The fast check of a schema, or undefined when it uses a keyword this checker does not mirror exactly. */
export function fastCheckOf(
  schema: JsonSchema,
  /** True only for a valid date-time in the events' own shape (`2024-05-01T08:15:00.000Z`). */
  dateTime: (s: string) => boolean,
): FastCheck | undefined {
  const gen = new Gen();
  try {
    gen.check(schema, 'data');
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
  // Generated from the contracts' own schemas (no data reaches the source), as ajv compiles them.
  const make = new Function('h', `return function fastCheck(data) {\n${gen.lines.join('\n')}\nreturn true;\n}`);
  return make({ ...gen.helpers(), dateTime, isGuid, isPrintable, ucs2length }) as FastCheck;
}

/** Writes statements that `return false` unless the value in a variable passes a schema. */
class Gen {
  readonly lines: string[] = [];
  private vars = 0;
  private readonly regexps: RegExp[] = [];
  private readonly sets: Set<unknown>[] = [];

  helpers() {
    return { re: this.regexps, sets: this.sets };
  }

  private emit(line: string): void {
    this.lines.push(line);
  }

  check(schema: JsonSchema, v: string): void {
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) throw new Unsupported();
    const s = schema as Record<string, unknown>;
    for (const k of Object.keys(s))
      if (!handled.has(k) && !annotations.has(k) && !k.startsWith('x-')) throw new Unsupported();
    let types: Set<JsonType> | undefined;
    if (s.type !== undefined) {
      const list = ([] as unknown[]).concat(s.type);
      for (const t of list) if (!jsonTypes.has(t as JsonType)) throw new Unsupported();
      types = new Set(list as JsonType[]);
    }
    if ('const' in s) {
      if (!primitive(s.const)) throw new Unsupported();
      this.emit(`if (${v} !== ${JSON.stringify(s.const)}) return false;`);
    }
    if (s.enum !== undefined) {
      if (!Array.isArray(s.enum) || !s.enum.every(primitive)) throw new Unsupported();
      this.sets.push(new Set(s.enum));
      this.emit(`if (!h.sets[${this.sets.length - 1}].has(${v})) return false;`);
    }
    if (types !== undefined) {
      const ok: string[] = [];
      if (types.has('string')) ok.push(`typeof ${v} === 'string'`);
      if (types.has('number')) ok.push(`typeof ${v} === 'number'`);
      else if (types.has('integer')) ok.push(`Number.isInteger(${v})`);
      if (types.has('boolean')) ok.push(`typeof ${v} === 'boolean'`);
      if (types.has('null')) ok.push(`${v} === null`);
      if (types.has('array')) ok.push(`Array.isArray(${v})`);
      if (types.has('object')) ok.push(`(typeof ${v} === 'object' && ${v} !== null && !Array.isArray(${v}))`);
      this.emit(`if (!(${ok.join(' || ')})) return false;`);
    }
    // Each keyword applies to values of its own type only.
    this.strings(s, v);
    this.numbers(s, v);
    this.objects(s, v);
    this.arrays(s, v);
  }

  private strings(s: Record<string, unknown>, v: string): void {
    const checks: string[] = [];
    // Code points never outnumber UTF-16 units: within the limit in units is within it in code points.
    if (s.maxLength !== undefined) checks.push(`${v}.length <= ${Number(s.maxLength)}`);
    // A code point takes at most two units.
    if (s.minLength !== undefined)
      checks.push(`(${v}.length >= ${2 * Number(s.minLength)} || h.ucs2length(${v}) >= ${Number(s.minLength)})`);
    if (s.pattern !== undefined) {
      const pattern = s.pattern as string;
      if (pattern === `^${guidPattern}$`) checks.push(`h.isGuid(${v})`);
      else if (pattern === printablePattern) checks.push(`h.isPrintable(${v})`);
      else if (pattern === eventTimePattern && s.format === 'date-time') {
        // The date-time check below passes only the events' own shape, which this pattern spells out.
      } else {
        this.regexps.push(new RegExp(pattern, 'u')); // as ajv compiles it (unicodeRegExp)
        checks.push(`h.re[${this.regexps.length - 1}].test(${v})`);
      }
    }
    if (s.format !== undefined) {
      if (s.format !== 'date-time') throw new Unsupported();
      checks.push(`h.dateTime(${v})`);
    }
    if (checks.length) this.emit(`if (typeof ${v} === 'string' && !(${checks.join(' && ')})) return false;`);
  }

  private numbers(s: Record<string, unknown>, v: string): void {
    const checks: string[] = [];
    if (s.minimum !== undefined) checks.push(`${v} >= ${Number(s.minimum)}`);
    if (s.maximum !== undefined) checks.push(`${v} <= ${Number(s.maximum)}`);
    if (s.exclusiveMinimum !== undefined) checks.push(`${v} > ${Number(s.exclusiveMinimum)}`);
    if (s.exclusiveMaximum !== undefined) checks.push(`${v} < ${Number(s.exclusiveMaximum)}`);
    if (checks.length) this.emit(`if (typeof ${v} === 'number' && !(${checks.join(' && ')})) return false;`);
  }

  private objects(s: Record<string, unknown>, v: string): void {
    const required = (s.required as string[] | undefined) ?? [];
    const props = Object.entries((s.properties as Record<string, JsonSchema> | undefined) ?? {});
    if (!required.length && !props.length) return;
    this.emit(`if (typeof ${v} === 'object' && ${v} !== null && !Array.isArray(${v})) {`);
    // As ajv reads them (no own-property check): a property is present when it is not undefined.
    for (const k of required) this.emit(`if (${v}[${JSON.stringify(k)}] === undefined) return false;`);
    for (const [k, sub] of props) {
      const x = `v${++this.vars}`;
      this.emit(`const ${x} = ${v}[${JSON.stringify(k)}];`);
      this.emit(`if (${x} !== undefined) {`);
      this.check(sub, x);
      this.emit('}');
    }
    this.emit('}');
  }

  private arrays(s: Record<string, unknown>, v: string): void {
    if (s.items !== undefined && (typeof s.items !== 'object' || Array.isArray(s.items))) throw new Unsupported();
    const checks: string[] = [];
    if (s.minItems !== undefined) checks.push(`${v}.length >= ${Number(s.minItems)}`);
    if (s.maxItems !== undefined) checks.push(`${v}.length <= ${Number(s.maxItems)}`);
    if (checks.length) this.emit(`if (Array.isArray(${v}) && !(${checks.join(' && ')})) return false;`);
    if (s.items !== undefined) {
      const i = `i${++this.vars}`;
      const x = `v${++this.vars}`;
      this.emit(`if (Array.isArray(${v})) for (let ${i} = 0; ${i} < ${v}.length; ${i}++) {`);
      this.emit(`const ${x} = ${v}[${i}];`);
      this.check(s.items as JsonSchema, x);
      this.emit('}');
    }
  }
}

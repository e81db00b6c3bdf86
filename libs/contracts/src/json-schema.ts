/**
 * The subset of JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) the contracts are written in.
 * Listing the keywords lets the compiler catch a misspelt keyword; `x-*` extensions are allowed.
 */
export interface JsonSchema {
  $schema?: string;
  $id?: string;
  title?: string;
  description?: string;
  default?: unknown;
  examples?: readonly unknown[];
  deprecated?: boolean;
  readOnly?: boolean;
  writeOnly?: boolean;
  type?: JsonType | readonly JsonType[];
  enum?: readonly unknown[];
  const?: unknown;
  // strings
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  contentEncoding?: string;
  contentMediaType?: string;
  // numbers
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  // arrays
  items?: JsonSchema | boolean;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  // objects
  properties?: Readonly<Record<string, JsonSchema | boolean>>;
  patternProperties?: Readonly<Record<string, JsonSchema | boolean>>;
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  required?: readonly string[];
  minProperties?: number;
  maxProperties?: number;
  dependentRequired?: Readonly<Record<string, readonly string[]>>;
  dependentSchemas?: Readonly<Record<string, JsonSchema>>;
  // composition
  allOf?: readonly JsonSchema[];
  anyOf?: readonly JsonSchema[];
  oneOf?: readonly JsonSchema[];
  not?: JsonSchema;
  if?: JsonSchema;
  then?: JsonSchema;
  else?: JsonSchema;
  $ref?: string;
  /** The message a violation of this (sub)schema reports instead of the generic one, after the field name. */
  'x-message'?: string;
  [extension: `x-${string}`]: unknown;
}

/** The JSON Schema primitive type names. */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** A string schema with the given bounds, so no string enters unbounded. */
export function text(maxLength: number, extra: JsonSchema = {}): JsonSchema {
  return { type: 'string', minLength: 1, maxLength, ...extra };
}

/** A nullable variant of a string schema (OpenAPI 3.1 style: a type list including null). */
export function nullable(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  if (type === undefined) return { anyOf: [schema, { type: 'null' }] };
  const types: readonly JsonType[] = Array.isArray(type) ? type : [type as JsonType];
  return {
    ...schema,
    type: [...types, 'null'],
    ...(schema.enum ? { enum: [...schema.enum, null] } : {}),
  };
}

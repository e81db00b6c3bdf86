import { type JsonSchema, text } from '../json-schema';
import { limits } from '../limits';

/** The regular expression source of one GUID (RFC 4122 textual form, any case). */
export const guidPattern = '[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}';

/** A GUID such as a call or interaction identifier. */
export const guid: JsonSchema = {
  type: 'string',
  pattern: `^${guidPattern}$`,
  maxLength: 36,
  'x-message': 'must be a GUID such as 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
};

/** An RFC 3339 timestamp with a time-zone designator (ISO 8601 profile). */
export const dateTime: JsonSchema = {
  type: 'string',
  format: 'date-time',
  maxLength: 40,
  'x-message': 'must be an ISO 8601 date-time with a time zone, e.g. 2024-05-01T08:00:00Z',
};

/** A UTC timestamp with milliseconds, as every response writes it (e.g. 2024-05-01T08:15:00.000Z). */
export const utcMillis: JsonSchema = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
  maxLength: 24,
  examples: ['2024-05-01T08:15:00.000Z'],
};

/** A name of a configured object (provider, route, plan, skill, queue): printable, bounded. */
export const name: JsonSchema = text(limits.maxName, {
  pattern: '^[^\\x00-\\x1F\\x7F-\\x9F]+$',
  'x-message': `must be 1 to ${limits.maxName} printable characters`,
});

/** A non-negative count. */
export const count: JsonSchema = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };

/** A duration or offset in milliseconds. */
export const millis: JsonSchema = {
  type: 'integer',
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'Milliseconds.',
};

/** Paging query parameters shared by every listing: 1-based page, limit default 100, max 5000. */
export const pagingQueryProperties: Record<string, JsonSchema> = {
  page: {
    type: 'integer',
    minimum: 1,
    maximum: 1_000_000,
    default: 1,
    description: 'Page number, 1-based.',
  },
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: limits.maxPageLimit,
    default: limits.defaultPageLimit,
    description: `Items per page; default ${limits.defaultPageLimit}, at most ${limits.maxPageLimit}.`,
  },
};

/** Time-window query parameters: start required, end default now, window at most 31 days. */
export const windowQueryProperties: Record<string, JsonSchema> = {
  start: {
    ...dateTime,
    description:
      "Start of the window (inclusive), ISO 8601 with a time zone. When polling, pass the previous response's `upTo`.",
  },
  end: {
    ...dateTime,
    description: `End of the window (exclusive); default now. The window may span at most ${limits.maxWindowDays} days and end must be after start (400 otherwise; checked by the service).`,
  },
};

/** The paging envelope's meta object. */
export const pageMeta: JsonSchema = {
  type: 'object',
  required: ['page', 'count', 'pageCount', 'totalCount'],
  properties: {
    page: { type: 'integer', minimum: 1, description: 'This page, 1-based.' },
    count: { ...count, description: 'Items on this page.' },
    pageCount: { ...count, description: 'Number of pages.' },
    totalCount: { ...count, description: 'Items on all pages.' },
  },
  additionalProperties: false,
};

/** Schema of a listing envelope `{meta, items, upTo}` around the given item schema. */
export function pageOf(item: JsonSchema, description: string): JsonSchema {
  return {
    type: 'object',
    description,
    required: ['meta', 'items', 'upTo'],
    properties: {
      meta: pageMeta,
      items: { type: 'array', items: item, maxItems: limits.maxPageLimit },
      upTo: {
        ...utcMillis,
        description: 'Data is complete up to this instant (exclusive); use it as the next `start` when polling.',
      },
    },
  };
}

/** Schema of an admin listing envelope `{meta, items}` around the given item schema. */
export function listOf(item: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['meta', 'items'],
    properties: { meta: pageMeta, items: { type: 'array', items: item, maxItems: limits.maxPageLimit } },
  };
}

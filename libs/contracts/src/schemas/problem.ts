import type { JsonSchema } from '../json-schema';

/** One violation of a request rule: an RFC 6901 pointer to the field and a precise message. */
export const fieldError: JsonSchema = {
  type: 'object',
  required: ['pointer', 'message'],
  properties: {
    pointer: {
      type: 'string',
      maxLength: 1000,
      description:
        'RFC 6901 JSON pointer to the offending field: relative to the body for body errors (`/requests/0/route`), `/query/<name>` for query parameters, `/params/<name>` for path parameters.',
    },
    message: { type: 'string', maxLength: 1000 },
  },
};

/** RFC 9457 problem details, as every API of the suite answers errors (`application/problem+json`). */
export const problem: JsonSchema = {
  type: 'object',
  description:
    'RFC 9457 problem details. `code` is a stable dotted error code (e.g. `REQUEST.VALIDATION`); `instance` is the request path; the `x-request-id` response header identifies the occurrence in the logs. Validation errors list one `{pointer, message}` per violation in `errors`.',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', format: 'uri', maxLength: 500 },
    title: { type: 'string', maxLength: 500 },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string', maxLength: 2000 },
    instance: { type: 'string', maxLength: 500 },
    code: { type: 'string', pattern: '^[A-Z0-9_]+(\\.[A-Z0-9_]+)*$', maxLength: 100 },
    errors: { type: 'array', items: fieldError, maxItems: 1000 },
    validVersions: {
      type: 'array',
      items: { type: 'integer', minimum: 0 },
      maxItems: 20,
      description: 'On 406: the API versions that can be requested.',
    },
  },
};

/** RFC 6749 §5.2 error body, as the token endpoints answer errors. */
export const oauthError: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'string',
      enum: [
        'invalid_request',
        'invalid_client',
        'invalid_grant',
        'unauthorized_client',
        'unsupported_grant_type',
        'invalid_scope',
      ],
    },
    error_description: { type: 'string', maxLength: 1000 },
  },
};

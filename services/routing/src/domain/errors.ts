import { type AppError, defineErrorCodes, type FieldError } from '@cc/kit/errors';

/** Routing's error codes and the HTTP status each maps to (chosen once, here). */
export const routingErrorCodes = {
  'INVOKE.UNKNOWN_PROVIDER': { status: 422, title: 'The provider is not registered' },
  'INVOKE.REQUEST_ID_CONFLICT': { status: 409, title: 'requestId reused with a different body' },
  'INVOKE.EXTERNAL_ID_IN_USE': { status: 409, title: 'externalId already names a live interaction' },
  'ROUTING.UNKNOWN_ROUTE': { status: 422, title: 'The route does not exist' },
  'ROUTING.UNKNOWN_PLAN': { status: 422, title: 'The interaction plan does not exist' },
  'ROUTING.UNKNOWN_SKILL': { status: 422, title: 'The skill is not configured' },
  'ROUTING.INVALID_PLAN': { status: 422, title: 'The interaction plan is inconsistent' },
  'AGENT.ACTION_FORBIDDEN': { status: 403, title: 'The provider does not permit this operation' },
  'AGENT.INVALID_STATE': { status: 409, title: 'Not allowed in the current state' },
  'AGENT.UNKNOWN_TARGET': { status: 422, title: 'The transfer target does not exist' },
} as const;

const routingErrors = defineErrorCodes(routingErrorCodes);

/** A routing error code. */
export type RoutingErrorCode = keyof typeof routingErrorCodes;

/** Throws-ready coded error (the HTTP status comes from the code table). */
export function routingError(
  code: RoutingErrorCode | 'REQUEST.CONFLICT' | 'REQUEST.NOT_FOUND' | 'REQUEST.VALIDATION' | 'AUTH.FORBIDDEN',
  message: string,
  errors: FieldError[] = [],
  extra: Record<string, unknown> = {},
): AppError {
  return routingErrors(code, message, errors, extra);
}

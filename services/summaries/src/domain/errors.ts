import { registerErrorCodes } from '@cc/kit/errors';

/** The summaries service's own error codes and the HTTP status each maps to. */
export const summariesErrorCodes = {
  'SUMMARIES.FEATURE_DISABLED': { status: 403, title: 'Agent summaries are not enabled for this account' },
} as const;

registerErrorCodes(summariesErrorCodes);

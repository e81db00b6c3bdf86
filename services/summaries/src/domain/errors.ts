import { defineErrorCodes } from '@cc/kit/errors';

/** The summaries service's own error codes and the HTTP status each maps to. */
export const summariesErrorCodes = {
  'SUMMARIES.FEATURE_DISABLED': { status: 403, title: 'Agent summaries are not enabled for this account' },
} as const;

/** A summaries error (its status comes with it). */
export const summariesError = defineErrorCodes(summariesErrorCodes);

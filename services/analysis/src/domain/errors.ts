import { defineErrorCodes } from '@cc/kit/errors';

/** The analysis service's own error codes and the HTTP status each maps to. */
export const analysisErrorCodes = {
  'ANALYSIS.UNKNOWN_CALL': { status: 404, title: 'No recorded call with this GUID' },
  'ANALYSIS.BAD_AUDIO': { status: 400, title: 'The recording is not usable audio' },
  'ANALYSIS.UNSUPPORTED_AUDIO': { status: 415, title: 'Unsupported audio format' },
  'ANALYSIS.RECORDING_TOO_LARGE': { status: 413, title: 'The recording is too large' },
  'ANALYSIS.UNKNOWN_CATEGORY_SET': { status: 404, title: 'No category rule set' },
} as const;

/** An analysis error (its status comes with it). */
export const analysisError = defineErrorCodes(analysisErrorCodes);

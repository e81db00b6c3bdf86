// One duplicate-key test for the whole suite lives in @cc/store; routing's names stay for its callers.
export { duplicateIndexes, isDuplicateKeyError as isDuplicateKey } from '@cc/store';

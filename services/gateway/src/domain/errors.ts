import { defineErrorCodes } from '@cc/kit/errors';

/** The gateway's own error codes; the HTTP status of each is chosen here, once. */
export const gatewayErrors = {
  ACCOUNT_NOT_FOUND: 'GATEWAY.ACCOUNT_NOT_FOUND',
  ACCOUNT_EXISTS: 'GATEWAY.ACCOUNT_EXISTS',
  CLIENT_NOT_FOUND: 'GATEWAY.CLIENT_NOT_FOUND',
  CLIENT_EXISTS: 'GATEWAY.CLIENT_EXISTS',
  V0_CREDENTIAL_NOT_FOUND: 'GATEWAY.V0_CREDENTIAL_NOT_FOUND',
  V0_CREDENTIAL_EXISTS: 'GATEWAY.V0_CREDENTIAL_EXISTS',
  TOKEN_ENDPOINT_DISABLED: 'GATEWAY.TOKEN_ENDPOINT_DISABLED',
  CONCURRENT_UPDATE: 'GATEWAY.CONCURRENT_UPDATE',
} as const;

/** A gateway error (its status comes with it). */
export const gatewayError = defineErrorCodes({
  [gatewayErrors.ACCOUNT_NOT_FOUND]: { status: 404, title: 'Account not found' },
  [gatewayErrors.ACCOUNT_EXISTS]: { status: 409, title: 'Account exists' },
  [gatewayErrors.CLIENT_NOT_FOUND]: { status: 404, title: 'API client not found' },
  [gatewayErrors.CLIENT_EXISTS]: { status: 409, title: 'API client exists' },
  [gatewayErrors.V0_CREDENTIAL_NOT_FOUND]: { status: 404, title: 'v0 credentials not found' },
  [gatewayErrors.V0_CREDENTIAL_EXISTS]: { status: 409, title: 'v0 credentials exist' },
  [gatewayErrors.TOKEN_ENDPOINT_DISABLED]: { status: 404, title: 'Token endpoint disabled' },
  [gatewayErrors.CONCURRENT_UPDATE]: { status: 409, title: 'Concurrent update' },
});

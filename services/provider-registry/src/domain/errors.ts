import { defineErrorCodes } from '@cc/kit/errors';

/** The provider registry's own error codes and the HTTP status each maps to. */
export const providerErrorCodes = {
  'PROVIDER.NOT_FOUND': { status: 404, title: 'Provider not found' },
  'PROVIDER.ENDPOINT_NOT_ALLOWED': { status: 400, title: 'Endpoint is not a public https URL' },
  'PROVIDER.ENDPOINT_UNRESOLVABLE': { status: 400, title: 'Endpoint host does not resolve' },
  'PROVIDER.DNS_UNAVAILABLE': { status: 503, title: 'Endpoint host could not be checked' },
} as const;

/** A provider-registry error (its status comes with it). */
export const providerError = defineErrorCodes(providerErrorCodes);

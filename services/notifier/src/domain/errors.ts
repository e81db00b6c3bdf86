import { defineErrorCodes } from '@cc/kit/errors';

/** The notifier's own error codes and their HTTP statuses (chosen once, here). */
export const notifierErrorCodes = {
  'NOTIFIER.DELIVERY_NOT_FOUND': { status: 404, title: 'Delivery not found' },
  'NOTIFIER.PROVIDER_NOT_FOUND': { status: 404, title: 'Provider not found' },
  'NOTIFIER.DELIVERY_PENDING': { status: 409, title: 'The delivery is pending' },
  'NOTIFIER.SEALED_SECRETS': { status: 500, title: 'Delivery secrets unavailable' },
  'NOTIFIER.CONFIG': { status: 500, title: 'Invalid notifier configuration' },
} as const;

/** A notifier error (its status comes with it). */
export const notifierError = defineErrorCodes(notifierErrorCodes);

import { errorRef } from '../contracts/schemas.js';

/** The portal's security requirement: the `portal_session` cookie (one definition, in contracts/schemas.ts). */
export { portalSecurity } from '../contracts/schemas.js';

/* What every route of the portal API declares (docs/portal.md): its tag, its security and its errors. */

export const portalTags = ['Portal'];

/** Errors of a portal route that reads. */
export const portalReadErrors = {
  400: errorRef('Validation error: `details` names each invalid field.'),
  401: errorRef('No live portal session: sign in again.'),
  429: errorRef('Too many failed sign-ins or sessions from this address: `retry_after` says when to retry.'),
  500: errorRef('Internal error: quote `request_id` to support.'),
} as const;

/** Errors of a portal route that changes something. */
export const portalChangeErrors = {
  ...portalReadErrors,
  403: errorRef('A viewer (only developers change), or a request without this server\u2019s Origin.'),
} as const;

/** The 404 of an id that is not the clinic's (never a 403: ids are not confirmed). */
export const portalNotFound = (what: string) => ({ 404: errorRef(`${what} not found in your clinic.`) }) as const;

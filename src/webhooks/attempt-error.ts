import { REFUSED_CODE } from '../delivery/url-safety.js';

/**
 * Why an attempt received no HTTP status, as the partner's delivery log says it: deliberately coarse,
 * like the test call's answer. The stored text (`webhook_delivery_attempts.error`, shown to the
 * operator) can name internal hosts and addresses; a partner learns only the kind.
 */
export type AttemptErrorKind = 'timeout' | 'network_error' | 'refused' | 'not_sent';

/** The kind of a stored attempt error (see http-sender.ts and delivery.service.ts for the texts written). */
export function attemptErrorKind(responseStatus: number | null, error: string | null): AttemptErrorKind | null {
  if (responseStatus !== null || error === null) return null;
  if (error.startsWith('timed out')) return 'timeout';
  if (error.startsWith('not sent')) return 'not_sent';
  if (error.startsWith('refused') || error === 'invalid URL' || error.includes(REFUSED_CODE)) return 'refused';
  return 'network_error';
}

/**
 * A delivery's `last_error` as a partner may see it: the server's own texts (`HTTP 500`, `endpoint
 * deleted`, `endpoint disabled: …`) as stored, an attempt's transport error as its kind only.
 */
export function lastErrorForPartner(error: string | null): string | null {
  if (error === null) return null;
  if (/^HTTP \d{3}$/.test(error) || error.startsWith('endpoint ')) return error;
  return attemptErrorKind(null, error);
}

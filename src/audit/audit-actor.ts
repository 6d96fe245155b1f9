import type { Trx } from '../db/database.js';
import type { PartnerIdentity } from '../partner-identity.js';

/**
 * Who acted, as the audit trail records it. A new kind of actor (issue 10's operator staff, with an
 * id and an email) is a new member of this union: its id goes in `actor_id` like an API key's, and
 * its email in a column added then; nothing is renamed.
 */
export type AuditActor =
  /** A partner request, by its API key (and so its clinic). */
  | { readonly type: 'partner'; readonly apiKeyId: string; readonly clinicId: string }
  /** The pharmacy's operator (the ADMIN_TOKEN holder): one shared credential, no id. */
  | { readonly type: 'operator' };

/**
 * What a service needs to record an access on someone's behalf: the actor and where the request
 * came from. Built by the route (http/audit-context.ts) and passed down with the call.
 */
export interface AuditContext {
  readonly actor: AuditActor;
  /** The request's X-Request-Id; null for an action without an HTTP request. */
  readonly requestId: string | null;
  /** The client's address as the server saw it (after TRUST_PROXY); null without an HTTP request. */
  readonly clientAddress: string | null;
  /**
   * What else must commit with the request's change, in its transaction: an idempotent request marks
   * its key carried out there (http/audit-context.ts), so that a retry never runs it twice.
   */
  readonly withinChange?: (trx: Trx) => Promise<void>;
}

/** The audit context of a partner's call made without HTTP (tests, scripts). */
export function partnerAuditContext(
  identity: PartnerIdentity,
  request: { requestId: string | null; clientAddress: string | null } = { requestId: null, clientAddress: null },
): AuditContext {
  return { actor: { type: 'partner', apiKeyId: identity.apiKeyId, clinicId: identity.clinicId }, ...request };
}

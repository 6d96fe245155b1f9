import type { Claim } from '../idempotency/claim.js';
import type { PartnerIdentity } from '../partner-identity.js';

/**
 * Who acted, as the audit trail records it: a partner's API key or OAuth client, a staff member of
 * the pharmacy signed in to the console (id, email and name), the holder of the operator token, or
 * a person at the operator command line (by the name they gave, or their OS user).
 */
export type AuditActor =
  /** A partner request, by its API key (and so its clinic). */
  | { readonly type: 'partner'; readonly apiKeyId: string; readonly clinicId: string }
  /** A partner request with an OAuth access token, by the client it was issued to (and so its clinic). */
  | { readonly type: 'oauth_client'; readonly oauthClientId: string; readonly clinicId: string }
  /** A staff member signed in to the console (their own account, issue 10), named as they were then. */
  | { readonly type: 'staff'; readonly staffId: string; readonly email: string; readonly name: string }
  /** A person of a clinic signed in to the partner portal (issue 22), named as they were then. */
  | {
      readonly type: 'partner_user';
      readonly partnerUserId: string;
      readonly email: string;
      readonly name: string | null;
      readonly clinicId: string;
    }
  /** The holder of ADMIN_TOKEN (automation, emergencies): one shared credential, no id, named OPERATOR_TOKEN_NAME. */
  | { readonly type: 'operator' }
  /** The operator command line: `--operator <name>`, or else the OS user running it (admin/cli-operator.ts). */
  | { readonly type: 'command_line'; readonly operatorName: string };

/** How the trail and the order history name the shared operator token: one credential, no person behind it. */
export const OPERATOR_TOKEN_NAME = 'Operator token';

/** The actor's name as the trail and the history keep it: null for a partner's credential (named by its id). */
export function actorName(actor: AuditActor): string | null {
  switch (actor.type) {
    case 'staff':
      return actor.name;
    case 'partner_user':
      return actor.name ?? actor.email;
    case 'operator':
      return OPERATOR_TOKEN_NAME;
    case 'command_line':
      return actor.operatorName;
    case 'partner':
    case 'oauth_client':
      return null;
  }
}

/**
 * What a service needs to record an access on someone's behalf: the actor and where the request
 * came from. Built by the route (http/audit-context.ts) and passed down with the call.
 */
export interface AuditContext {
  readonly actor: AuditActor;
  /** The request's id, chosen by the server (the X-Request-Id answered); null for an action without an HTTP request. */
  readonly requestId: string | null;
  /** The X-Request-Id the client sent, bounded and sanitized (http/request-id.ts); null or absent when none. */
  readonly clientRequestId?: string | null;
  /** The client's address as the server saw it (after TRUST_PROXY); null without an HTTP request. */
  readonly clientAddress: string | null;
  /**
   * The Idempotency-Key this request holds, if it sent one: its change marks it carried out in the
   * same transaction (changes/run-change.ts), so that a retry never runs it twice.
   */
  readonly idempotencyClaim?: Claim;
}

/** The audit context of a partner's call made without HTTP (tests, scripts). */
export function partnerAuditContext(
  identity: PartnerIdentity,
  request: { requestId: string | null; clientAddress: string | null } = { requestId: null, clientAddress: null },
): AuditContext {
  return { actor: partnerActor(identity), ...request };
}

/** The actor of a partner's credential: its API key, or the OAuth client its access token was issued to. */
export function partnerActor(identity: PartnerIdentity): AuditActor {
  if (identity.oauthClientId !== undefined)
    return { type: 'oauth_client', oauthClientId: identity.oauthClientId, clinicId: identity.clinicId };
  if (identity.apiKeyId === undefined) throw new Error('A partner identity names its API key or its OAuth client');
  return { type: 'partner', apiKeyId: identity.apiKeyId, clinicId: identity.clinicId };
}

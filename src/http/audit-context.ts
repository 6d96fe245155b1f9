import type { FastifyRequest } from 'fastify';
import { partnerAuditContext, type AuditActor, type AuditContext } from '../audit/audit-actor.js';
import { partnerOf } from './partner-guard.js';
import { clientAddress } from './client-address.js';
import { clientRequestIdOf } from './request-id.js';
import { partnerUserOf, type PartnerUserIdentity } from '../portal/partner-user-identity.js';

/*
 * The audit context of a request, built by its route and passed to the service, which records the
 * change in its transaction or the read in the buffer. The request id is the X-Request-Id answered
 * (the server's own); the client's X-Request-Id, if usable, rides beside it (http/request-id.ts);
 * the address is `clientAddress(request)`, so behind a trusted proxy it is the client's, not the proxy's.
 */

/** A partner request (behind the partner guard): its API key and clinic. */
export function partnerAudit(request: FastifyRequest): AuditContext {
  const context: AuditContext = {
    ...partnerAuditContext(partnerOf(request), { requestId: request.id, clientAddress: clientAddress(request) }),
    clientRequestId: clientRequestIdOf(request),
  };
  // An idempotent request's change marks its key carried out in the change's transaction.
  const claim = request.idempotency?.claim;
  return claim ? { ...context, idempotencyClaim: claim } : context;
}

/** An operator request (behind the operator guard): the staff member signed in, or the token's holder. */
export function operatorAudit(request: FastifyRequest): AuditContext {
  const operator = request.operator;
  const actor: AuditActor =
    operator?.kind === 'staff'
      ? { type: 'staff', staffId: operator.staff.staffId, email: operator.staff.email, name: operator.staff.name }
      : { type: 'operator' };
  return { actor, requestId: request.id, clientAddress: clientAddress(request), clientRequestId: clientRequestIdOf(request) };
}

/** The audit context of a portal user's request: the person, their clinic, and where the request came from. */
export function portalAudit(request: FastifyRequest, user: PartnerUserIdentity = partnerUserOf(request)): AuditContext {
  return {
    actor: {
      type: 'partner_user',
      partnerUserId: user.partnerUserId,
      email: user.email,
      name: user.name,
      clinicId: user.clinicId,
    },
    requestId: request.id,
    clientRequestId: clientRequestIdOf(request),
    clientAddress: clientAddress(request),
  };
}

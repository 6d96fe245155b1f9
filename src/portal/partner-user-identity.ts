import type { FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../errors.js';
import type { PartnerUserRole } from './partner-user.tables.js';

/** Who is signed in to the partner portal: what the guard, the role checks and the audit trail need. */
export interface PartnerUserIdentity {
  readonly partnerUserId: string;
  readonly clinicId: string;
  readonly email: string;
  readonly name: string | null;
  readonly role: PartnerUserRole;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on /api/portal requests once the portal session is accepted (http/portal-guard.ts). */
    partnerUser?: PartnerUserIdentity;
  }
}

/** The signed-in portal user of a guarded /api/portal route. */
export function partnerUserOf(request: FastifyRequest): PartnerUserIdentity {
  const user = request.partnerUser;
  if (!user) throw unauthorized('sign in to the partner portal first');
  return user;
}

/** The portal user of a route that changes something: a `viewer` reads only (403). */
export function portalDeveloperOf(request: FastifyRequest): PartnerUserIdentity {
  const user = partnerUserOf(request);
  if (user.role !== 'developer') {
    throw forbidden('This action needs the developer role; you are signed in as viewer (ask your clinic to change your role)');
  }
  return user;
}

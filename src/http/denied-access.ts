import type { FastifyRequest } from 'fastify';
import { NotFoundInClinic, recordDeniedAccess } from '../audit/denied-access.js';
import type { AppContext } from '../context.js';
import type { AppError } from '../errors.js';
import { portalAudit } from './audit-context.js';
import { partnerAudit } from './audit-context.js';

/**
 * Before a partner's (or a portal user's) 404 for records not found in its clinic is answered:
 * records a denied access for those that exist in another clinic (audit/denied-access.ts). The answer is the same 404
 * whatever happens here: a failure to record is logged, never answered (a 503 only for ids that
 * exist elsewhere would tell the caller what the 404 hides).
 */
export function deniedAccessRecorder(ctx: AppContext) {
  return (request: FastifyRequest, error: AppError): Promise<void> | undefined => {
    if (!(error instanceof NotFoundInClinic)) return undefined;
    const { partner, partnerUser } = request;
    const caller = partner
      ? { audit: partnerAudit(request), clinicId: partner.clinicId }
      : partnerUser
        ? { audit: portalAudit(request, partnerUser), clinicId: partnerUser.clinicId }
        : undefined;
    if (caller === undefined) return undefined;
    return recordDeniedAccess(ctx, caller.audit, caller.clinicId, error.records).catch((failure: unknown) => {
      request.log.warn({ err: failure }, 'audit trail: a denied access to another clinic\u2019s record could not be recorded');
    });
  };
}

import { newId } from '../shared/ids.js';
import { actorName, type AuditActor, type AuditContext } from './audit-actor.js';
import type { AuditAction, AuditedResource } from './audit-vocabulary.js';
import type { AuditEventTable } from './audit.tables.js';

/** The row recording that `audit`'s actor did `action` to `resource` at `at`. Ids only. */
export function auditRow(at: string, audit: AuditContext, action: AuditAction, resource: AuditedResource): AuditEventTable {
  const { actor } = audit;
  const partner = actor.type === 'partner' || actor.type === 'oauth_client' || actor.type === 'partner_user';
  return {
    id: newId(),
    at,
    actor_type: actor.type,
    actor_id: actorId(actor),
    actor_email: actor.type === 'staff' || actor.type === 'partner_user' ? actor.email : null,
    actor_name: actorName(actor),
    // A partner only reaches its own clinic's resources; the operator's row names the resource's.
    clinic_id: partner ? actor.clinicId : resource.clinicId,
    action,
    resource_type: resource.type,
    resource_id: resource.id,
    request_id: audit.requestId,
    client_address: audit.clientAddress,
    client_request_id: audit.clientRequestId ?? null,
    // Only a partner's refused attempt names a clinic other than its own (audit/denied-access.ts).
    resource_clinic_id: partner && resource.clinicId !== null && resource.clinicId !== actor.clinicId ? resource.clinicId : null,
  };
}

function actorId(actor: AuditActor): string | null {
  switch (actor.type) {
    case 'partner':
      return actor.apiKeyId;
    case 'oauth_client':
      return actor.oauthClientId;
    case 'staff':
      return actor.staffId;
    case 'partner_user':
      return actor.partnerUserId;
    case 'operator':
    case 'command_line':
      return null;
  }
}

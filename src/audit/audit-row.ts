import { newId } from '../shared/ids.js';
import type { AuditActor, AuditContext } from './audit-actor.js';
import type { AuditAction, AuditedResource } from './audit-vocabulary.js';
import type { AuditEventTable } from './audit.tables.js';

/** The row recording that `audit`'s actor did `action` to `resource` at `at`. Ids only. */
export function auditRow(at: string, audit: AuditContext, action: AuditAction, resource: AuditedResource): AuditEventTable {
  const { actor } = audit;
  return {
    id: newId(),
    at,
    actor_type: actor.type,
    actor_id: actorId(actor),
    actor_email: actor.type === 'staff' ? actor.email : null,
    // A partner only reaches its own clinic's resources; the operator's row names the resource's.
    clinic_id: actor.type === 'partner' || actor.type === 'oauth_client' ? actor.clinicId : resource.clinicId,
    action,
    resource_type: resource.type,
    resource_id: resource.id,
    request_id: audit.requestId,
    client_address: audit.clientAddress,
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
    case 'operator':
      return null;
  }
}

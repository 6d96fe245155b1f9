import type { AuditedReadContext, ReadContext } from '../context.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import { fieldError } from '../errors.js';
import { optionalInstant } from '../shared/instants.js';
import type { AuditActor, AuditContext } from './audit-actor.js';
import type { AuditResourceType } from './audit-vocabulary.js';
import * as repo from './audit.repository.js';
import type { AuditEventListQuery, AuditEventView } from './audit.schemas.js';
import type { AuditEventTable } from './audit.tables.js';

/**
 * An idempotent replay hands the actor the stored answer of an earlier request (ids, an order, a
 * webhook's secret): recorded as reads, by this actor, of what that request created or changed
 * (found through its request id, in the actor's clinic).
 */
export async function recordReplayReads(
  ctx: AuditedReadContext,
  audit: AuditContext,
  clinicId: string,
  originalRequestId: string,
): Promise<void> {
  const rows = await repo.findResourcesChangedByRequest(ctx.db, clinicId, originalRequestId);
  await ctx.audit.recordReads(
    audit,
    rows.map((row) => ({
      type: row.resource_type as AuditResourceType,
      id: row.resource_id,
      clinicId: row.clinic_id ?? clinicId,
    })),
  );
}

/**
 * GET /api/admin/audit-events: newest first, keyset-paginated like the other operator lists,
 * filtered by date range, actor, action, resource and clinic. The viewer's own reads (what the
 * console showed them while they worked) are left out unless `include_own_reads` is true.
 */
export async function listAuditEvents(
  ctx: ReadContext,
  query: AuditEventListQuery,
  viewer: AuditActor,
): Promise<Page<AuditEventView>> {
  const limit = query.limit ?? 50;
  const from = optionalInstant(query.from, 'from');
  const to = optionalInstant(query.to, 'to');
  if (from !== undefined && to !== undefined && to < from) throw fieldError('to', 'must not be before from');
  const rows = await repo.listAuditEvents(
    ctx.db,
    {
      from,
      to,
      resourceType: query.resource_type,
      resourceId: query.resource_id,
      clinicId: query.clinic_id,
      action: query.action,
      actorType: query.actor_type,
      actorId: query.actor_id,
      withoutReadsOf: query.include_own_reads === true ? undefined : ownReadsOf(viewer),
      before: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
    },
    limit + 1,
  );
  return toPage(
    rows.map((row) => ({ ...row, created_at: row.at })),
    limit,
    (page) => page.map(toView),
  );
}

/** Whose reads are the viewer's own: a staff member's by their id, the operator token's by its type. */
function ownReadsOf(viewer: AuditActor): { actorType: string; actorId: string | null } {
  switch (viewer.type) {
    case 'staff':
      return { actorType: 'staff', actorId: viewer.staffId };
    case 'operator':
    case 'command_line':
      return { actorType: viewer.type, actorId: null };
    case 'partner':
      return { actorType: 'partner', actorId: viewer.apiKeyId };
    case 'oauth_client':
      return { actorType: 'oauth_client', actorId: viewer.oauthClientId };
    case 'partner_user':
      return { actorType: 'partner_user', actorId: viewer.partnerUserId };
  }
}

function toView(row: AuditEventTable): AuditEventView {
  return {
    audit_event_id: row.id,
    at: row.at,
    actor: actorView(row),
    actor_name: row.actor_name,
    clinic_id: row.clinic_id,
    action: row.action as AuditEventView['action'],
    resource_type: row.resource_type as AuditEventView['resource_type'],
    resource_id: row.resource_id,
    request_id: row.request_id,
    client_request_id: row.client_request_id,
    client_address: row.client_address,
    resource_clinic_id: row.resource_clinic_id,
  };
}

function actorView(row: AuditEventTable): AuditEventView['actor'] {
  switch (row.actor_type) {
    case 'partner':
      return { type: 'partner', api_key_id: row.actor_id ?? '', clinic_id: row.clinic_id ?? '' };
    case 'oauth_client':
      return { type: 'oauth_client', oauth_client_id: row.actor_id ?? '', clinic_id: row.clinic_id ?? '' };
    case 'staff':
      return { type: 'staff', staff_id: row.actor_id ?? '', email: row.actor_email ?? '', name: row.actor_name };
    case 'partner_user':
      return {
        type: 'partner_user',
        partner_user_id: row.actor_id ?? '',
        email: row.actor_email ?? '',
        name: row.actor_name,
        clinic_id: row.clinic_id ?? '',
      };
    case 'operator':
      return { type: 'operator' };
    case 'command_line':
      return { type: 'command_line', name: row.actor_name ?? '' };
    default:
      // Only this code writes the table: an unknown type is a new actor this view has not learnt.
      throw new Error(`Unknown audit actor type ${row.actor_type}`);
  }
}

import { randomUUID } from 'node:crypto';
import type { AuditedReadContext, ReadContext } from '../context.js';
import type { DbOrTrx, Trx } from '../db/database.js';
import type { Write } from '../db/write-together.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import type { AuditContext } from './audit-actor.js';
import type { AuditAction, AuditedResource, AuditResourceType } from './audit-vocabulary.js';
import * as repo from './audit.repository.js';
import type { AuditEventListQuery, AuditEventView } from './audit.schemas.js';
import type { AuditEventTable } from './audit.tables.js';

/** The row recording that `audit`'s actor did `action` to `resource` at `at`. Ids only. */
export function auditRow(at: string, audit: AuditContext, action: AuditAction, resource: AuditedResource): AuditEventTable {
  const { actor } = audit;
  return {
    id: randomUUID(),
    at,
    actor_type: actor.type,
    actor_id: actor.type === 'partner' ? actor.apiKeyId : actor.type === 'staff' ? actor.staffId : null,
    actor_email: actor.type === 'staff' ? actor.email : null,
    // A partner only reaches its own clinic's resources; the operator's row names the resource's.
    clinic_id: actor.type === 'partner' ? actor.clinicId : resource.clinicId,
    action,
    resource_type: resource.type,
    resource_id: resource.id,
    request_id: audit.requestId,
    client_address: audit.clientAddress,
  };
}

/**
 * Records a change in the transaction that makes it (the `Trx` type says so): the row exists if and
 * only if the change commits. Reads go through the buffer instead (audit-buffer.ts).
 */
export async function recordChange(
  trx: Trx,
  at: string,
  audit: AuditContext,
  action: AuditAction,
  ...resources: AuditedResource[]
): Promise<void> {
  await repo.insertAuditEvents(
    trx,
    resources.map((resource) => auditRow(at, audit, action, resource)),
  );
  await audit.withinChange?.(trx);
}

/**
 * The write recording a change, for writeTogether (db/write-together.ts), which runs it with the
 * change itself; pass `audit.withinChange` along as its `within`.
 */
export function changeRecord(
  handle: DbOrTrx,
  at: string,
  audit: AuditContext,
  action: AuditAction,
  ...resources: AuditedResource[]
): Write {
  return repo.auditInsert(
    handle,
    resources.map((resource) => auditRow(at, audit, action, resource)),
  );
}

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
  ctx.audit.recordReads(
    audit,
    rows.map((row) => ({
      type: row.resource_type as AuditResourceType,
      id: row.resource_id,
      clinicId: row.clinic_id ?? clinicId,
    })),
  );
}

/** GET /api/admin/audit-events: newest first, keyset-paginated like the other operator lists. */
export async function listAuditEvents(ctx: ReadContext, query: AuditEventListQuery): Promise<Page<AuditEventView>> {
  const limit = query.limit ?? 50;
  const rows = await repo.listAuditEvents(
    ctx.db,
    {
      resourceId: query.resource_id,
      clinicId: query.clinic_id,
      action: query.action,
      actorId: query.actor_id,
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

function toView(row: AuditEventTable): AuditEventView {
  return {
    audit_event_id: row.id,
    at: row.at,
    actor: actorView(row),
    clinic_id: row.clinic_id,
    action: row.action as AuditEventView['action'],
    resource_type: row.resource_type as AuditEventView['resource_type'],
    resource_id: row.resource_id,
    request_id: row.request_id,
    client_address: row.client_address,
  };
}

function actorView(row: AuditEventTable): AuditEventView['actor'] {
  switch (row.actor_type) {
    case 'partner':
      return { type: 'partner', api_key_id: row.actor_id ?? '', clinic_id: row.clinic_id ?? '' };
    case 'staff':
      return { type: 'staff', staff_id: row.actor_id ?? '', email: row.actor_email ?? '' };
    case 'operator':
      return { type: 'operator' };
    default:
      // Only this code writes the table: an unknown type is a new actor this view has not learnt.
      throw new Error(`Unknown audit actor type ${row.actor_type}`);
  }
}

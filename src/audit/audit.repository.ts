import type { DbOrTrx } from '../db/database.js';
import { runWriteDirectly } from '../db/direct-statement.js';
import { insertRows } from '../db/row-insert.js';
import type { Write, WriteTarget } from '../db/write.js';
import { olderThan, type PagePosition } from '../db/keyset-page.js';
import type { AuditEventTable } from './audit.tables.js';

/**
 * Rows per INSERT: 13 columns each keeps a statement far below the bound-parameter limits of both
 * drivers (SQLite's 32,766; PostgreSQL's 65,535).
 */
const INSERT_CHUNK = 500;

/**
 * Appends rows, one multi-row INSERT per chunk: the only write this table ever gets. A row already
 * there (same id) is skipped, so that the read buffer can write a batch again when it cannot know
 * whether its last attempt committed (a connection lost after the commit).
 */
export async function insertAuditEvents(db: DbOrTrx, rows: readonly AuditEventTable[]): Promise<void> {
  for (const write of auditInserts({ statements: db }, rows)) {
    const compiled = write.compile();
    if (!(await runWriteDirectly(db, compiled))) await db.executeQuery(compiled);
  }
}

/** The INSERTs of `rows`, at most INSERT_CHUNK rows each, not yet run (a change runs them with its own rows). */
export function auditInserts(change: WriteTarget, rows: readonly AuditEventTable[]): Write[] {
  const writes: Write[] = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    writes.push(insertRows(change.statements, 'audit_events', rows.slice(i, i + INSERT_CHUNK), { doNothingOnConflict: 'id' }));
  }
  return writes;
}

export interface AuditEventFilter {
  /** At or after this instant (ISO, as stored). */
  from?: string | undefined;
  /** Before this instant. */
  to?: string | undefined;
  resourceType?: string | undefined;
  resourceId?: string | undefined;
  clinicId?: string | undefined;
  action?: string | undefined;
  actorType?: string | undefined;
  actorId?: string | undefined;
  /** Leaves out this actor's reads (the viewer's own: what the console showed them). */
  withoutReadsOf?: { actorType: string; actorId: string | null } | undefined;
  before?: PagePosition | undefined;
}

/** A page of the trail, newest first (keyset on (at, id); each filter has its own index). */
export async function listAuditEvents(db: DbOrTrx, filter: AuditEventFilter, limit: number): Promise<AuditEventTable[]> {
  let query = db.selectFrom('audit_events').selectAll();
  if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('at', '<', filter.to);
  if (filter.resourceType !== undefined) query = query.where('resource_type', '=', filter.resourceType);
  if (filter.resourceId !== undefined) query = query.where('resource_id', '=', filter.resourceId);
  if (filter.clinicId !== undefined) query = query.where('clinic_id', '=', filter.clinicId);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.actorType !== undefined) query = query.where('actor_type', '=', filter.actorType);
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
  const own = filter.withoutReadsOf;
  if (own !== undefined) {
    query = query.where((eb) =>
      eb.not(
        eb.and([
          eb('action', '=', 'read'),
          eb('actor_type', '=', own.actorType),
          own.actorId === null ? eb('actor_id', 'is', null) : eb('actor_id', '=', own.actorId),
        ]),
      ),
    );
  }
  if (filter.before !== undefined) query = query.where(olderThan({ createdAt: 'at', id: 'id' }, filter.before));
  return query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The resources a request created or changed (its rows other than reads), in one clinic. */
export async function findResourcesChangedByRequest(
  db: DbOrTrx,
  clinicId: string,
  requestId: string,
): Promise<{ resource_type: string; resource_id: string; clinic_id: string | null }[]> {
  return db
    .selectFrom('audit_events')
    .select(['resource_type', 'resource_id', 'clinic_id'])
    .distinct()
    .where('request_id', '=', requestId)
    .where('clinic_id', '=', clinicId)
    .where('action', '!=', 'read')
    .execute();
}

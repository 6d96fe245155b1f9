import { sql } from 'kysely';
import type { AuditEventTable } from '../../src/audit/audit.tables.js';
import type { AppContext } from '../../src/context.js';
import type { BatchScheduler } from '../../src/audit/audit-buffer.js';

/** Every audit row, oldest first, without its id (reads waiting for their batch are written first). */
export async function auditRows(ctx: AppContext): Promise<Omit<AuditEventTable, 'id'>[]> {
  await ctx.audit.flush();
  const rows = await ctx.db.selectFrom('audit_events').selectAll().execute();
  return rows.map(({ id: _id, ...row }) => row).sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
}

/** Rows of one instant (a list's reads, a refill's two creations) come in a stable order. */
const sortKey = (row: Omit<AuditEventTable, 'id'>) => `${row.at}|${row.action}|${row.resource_type}|${row.resource_id}`;

/**
 * Makes the database refuse audit rows that match `condition` (SQL over `new`), as a real failure
 * would; returns the function that lifts the refusal. A trigger, so that the code under test runs
 * unchanged on a real database.
 */
export async function refuseAuditRows(ctx: AppContext, condition: string): Promise<() => Promise<void>> {
  if (ctx.dialect === 'postgres') {
    await sql
      .raw(
        `create function refuse_audit_row() returns trigger language plpgsql as $$
         begin raise exception 'audit row refused by the test'; end $$`,
      )
      .execute(ctx.db);
    await sql
      .raw(
        `create trigger refuse_audit_row before insert on audit_events for each row when (${condition}) execute function refuse_audit_row()`,
      )
      .execute(ctx.db);
    return async () => {
      await sql.raw('drop function refuse_audit_row() cascade').execute(ctx.db);
    };
  }
  await sql
    .raw(
      `create trigger refuse_audit_row before insert on audit_events when ${condition}
       begin select raise(abort, 'audit row refused by the test'); end`,
    )
    .execute(ctx.db);
  return async () => {
    await sql.raw('drop trigger refuse_audit_row').execute(ctx.db);
  };
}

/** A batch scheduler the test fires by hand: each batch of reads waits until `fire()`. */
export function manualScheduler() {
  const queued: (() => void)[] = [];
  const scheduler: BatchScheduler = (write) => void queued.push(write);
  return {
    scheduler,
    get queued() {
      return queued.length;
    },
    fire: () => {
      for (const write of queued.splice(0)) write();
    },
  };
}

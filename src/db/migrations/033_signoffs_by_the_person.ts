import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Sign-offs by the person and a technician role (issue 39, items 3 and 4; docs/compounding.md#sign-offs,
 * docs/console.md#roles):
 * - `staff_members.role` takes `technician` beside `admin` and `pharmacist`;
 * - `order_signoffs.checked`: what a prescription review checked (JSON text, `["allergies",
 *   "duplicate_therapy","dose"]`); null for a final check, and for reviews recorded before, which did
 *   not say;
 * - the sign-off `product_check` (1.2.0's name) is now `final_check`: its rows are renamed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await setRoles(db, ['admin', 'pharmacist', 'technician']);
  await db.schema.alterTable('order_signoffs').addColumn('checked', 'text').execute();
  await db.updateTable('order_signoffs').set({ kind: 'final_check' }).where('kind', '=', 'product_check').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const technicians = await db.selectFrom('staff_members').select('id').where('role', '=', 'technician').execute();
  if (technicians.length > 0)
    throw new Error('033 cannot be reverted while technicians have accounts: disable and remove them first');
  await db.updateTable('order_signoffs').set({ kind: 'product_check' }).where('kind', '=', 'final_check').execute();
  await db.schema.alterTable('order_signoffs').dropColumn('checked').execute();
  await setRoles(db, ['admin', 'pharmacist']);
}

/**
 * Replaces the check of `staff_members.role` (migration 008's `role in ('admin', 'pharmacist')`).
 * PostgreSQL drops and adds the named constraint. SQLite cannot alter a check: the table is rebuilt
 * as SQLite's "making other kinds of table schema changes" says, from its own `create table` text
 * with the new check (so that the columns added since 008 and the unique email stay as they are),
 * with foreign keys off meanwhile (`staff_sessions` refers to it) and checked before they are on again.
 */
async function setRoles(db: Kysely<any>, roles: readonly string[]): Promise<void> {
  const check = `role in (${roles.map((role) => `'${role}'`).join(', ')})`;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table staff_members drop constraint staff_members_role_check`.execute(db);
    await sql`alter table staff_members add constraint staff_members_role_check check (${sql.raw(check)})`.execute(db);
    return;
  }
  const table = await sql<{
    sql: string;
  }>`select sql from main.sqlite_master where type = 'table' and name = 'staff_members'`.execute(db);
  const created = table.rows[0]?.sql ?? '';
  const rebuilt = created
    .replace(/^create table "?staff_members"?/i, 'create table "staff_members_rebuilt"')
    .replace(/role in \([^)]*\)/i, check);
  if (!rebuilt.includes('staff_members_rebuilt') || !rebuilt.includes(check)) {
    throw new Error(`staff_members is not as migration 008 made it: ${created}`);
  }
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    const off = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
    if (off.rows[0]?.foreign_keys !== 0) throw new Error('foreign keys cannot be turned off inside a transaction');
    await sql.raw(rebuilt).execute(db);
    await sql`insert into staff_members_rebuilt select * from staff_members`.execute(db);
    await sql`drop table staff_members`.execute(db);
    await sql`alter table staff_members_rebuilt rename to staff_members`.execute(db);
    const dangling = await sql`pragma foreign_key_check`.execute(db);
    if (dangling.rows.length > 0)
      throw new Error(`staff_members rebuilt with dangling references: ${JSON.stringify(dangling.rows)}`);
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

import { sql, type Kysely } from 'kysely';

/**
 * Staff accounts of the pharmacy (issue 10): one row per person who uses the console, their
 * sessions, and the failed sign-ins that lock an email; the audit trail learns the staff member's
 * email (its `actor_id` holds the staff id, as it holds a partner's API key id).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('staff_members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Lower-cased: one account per address, whatever case it is typed in.
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'pharmacist')`))
    // scrypt, with its parameters and salt (src/staff/password.ts): never reversible.
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'text')
    .execute();

  await db.schema
    .createTable('staff_sessions')
    // A SHA-256 of the cookie's token: the database never holds a usable session.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('staff_id', 'text', (c) => c.notNull().references('staff_members.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('staff_sessions_staff_idx').on('staff_sessions').column('staff_id').execute();

  await db.schema
    .createTable('staff_sign_in_failures')
    // A SHA-256 of the lower-cased email, existing or not: a lock says nothing about the account.
    .addColumn('email_digest', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .execute();

  await db.schema.alterTable('audit_events').addColumn('actor_email', 'text').execute();
  // The console's audit page filters by actor.
  await db.schema.createIndex('audit_events_actor_idx').on('audit_events').columns(['actor_id', 'at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_events_actor_idx').execute();
  await db.schema.alterTable('audit_events').dropColumn('actor_email').execute();
  await db.schema.dropTable('staff_sign_in_failures').execute();
  await db.schema.dropTable('staff_sessions').execute();
  await db.schema.dropTable('staff_members').execute();
}

import { sql, type Kysely } from 'kysely';

/**
 * The partner portal's people (issue 22): a clinic's developers and viewers sign in at /portal with
 * their own accounts. An operator invites one (a single-use link valid 72 hours); the invitee sets a
 * password through it. Sessions and the sign-in lock work as the staff's (migration 008).
 * A second factor (TOTP, RFC 6238) for both staff and partner users: the secret encrypted under the
 * data key (like webhook secrets), the last time step accepted (a code is never accepted twice).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('partner_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    // Lower-cased: one account per address across every clinic.
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('developer', 'viewer')`))
    // Null until the invitation is accepted.
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('activated_at', 'text')
    .addColumn('disabled_at', 'text')
    .addColumn('totp_secret', 'text')
    .addColumn('totp_secret_key_id', 'text')
    .addColumn('totp_enabled_at', 'text')
    .addColumn('totp_last_step', 'integer')
    .execute();
  await db.schema.createIndex('partner_users_clinic_idx').on('partner_users').columns(['clinic_id', 'id']).execute();

  await db.schema
    .createTable('partner_invitations')
    // A SHA-256 of the link's token: the database never holds a usable link.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_user_id', 'text', (c) => c.notNull().references('partner_users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('partner_invitations_user_idx').on('partner_invitations').column('partner_user_id').execute();

  await db.schema
    .createTable('partner_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_user_id', 'text', (c) => c.notNull().references('partner_users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('partner_sessions_user_idx').on('partner_sessions').column('partner_user_id').execute();

  await db.schema.alterTable('staff_members').addColumn('totp_secret', 'text').execute();
  await db.schema.alterTable('staff_members').addColumn('totp_secret_key_id', 'text').execute();
  await db.schema.alterTable('staff_members').addColumn('totp_enabled_at', 'text').execute();
  await db.schema.alterTable('staff_members').addColumn('totp_last_step', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('staff_members').dropColumn('totp_last_step').execute();
  await db.schema.alterTable('staff_members').dropColumn('totp_enabled_at').execute();
  await db.schema.alterTable('staff_members').dropColumn('totp_secret_key_id').execute();
  await db.schema.alterTable('staff_members').dropColumn('totp_secret').execute();
  await db.schema.dropTable('partner_sessions').execute();
  await db.schema.dropTable('partner_invitations').execute();
  await db.schema.dropTable('partner_users').execute();
}

import type { Kysely } from 'kysely';

/**
 * The audit trail (issue 21, item 6): the server now chooses every request id itself, and a client's
 * own X-Request-Id, when it sent one, is kept beside it as `client_request_id` (bounded and
 * sanitized: http/request-id.ts). A partner's attempt at another clinic's record is recorded as
 * `access_denied`; `resource_clinic_id` names the clinic the record really belongs to (never told to
 * the caller), while `clinic_id` stays the partner's own. Both null on every other row.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_events').addColumn('client_request_id', 'text').execute();
  await db.schema.alterTable('audit_events').addColumn('resource_clinic_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_events').dropColumn('resource_clinic_id').execute();
  await db.schema.alterTable('audit_events').dropColumn('client_request_id').execute();
}

import type { Kysely } from 'kysely';

/**
 * Rotating an endpoint's signing secret (issue 22): the previous secret keeps signing beside the new
 * one (two signatures in `webhook-signature`, as Standard Webhooks allows) until
 * `previous_secret_expires_at`, at most 24 hours, so that a receiver can switch without a gap.
 * Encrypted as `secret` is (src/delivery/endpoint-secret.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_key_id', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_expires_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret_expires_at').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret_key_id').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret').execute();
}

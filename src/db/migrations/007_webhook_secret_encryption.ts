import type { Kysely } from 'kysely';

/**
 * Webhook signing secrets are encrypted at rest (AES-256-GCM, see src/secrets/): `secret` holds the
 * sealed value and `secret_key_id` the id of the key it is sealed under. Migrations run without the
 * key, so rows written before this one keep their plaintext secret with `secret_key_id` null; every
 * process encrypts them when it starts, before it serves (src/webhooks/secret-encryption.service.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('secret_key_id', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('The webhook secret encryption migration cannot be reverted');
}

import type { Kysely } from 'kysely';

/**
 * Restricted, expiring and rolled API keys (issue 20, items 1 and 2): what a key may do (`scopes`, a
 * JSON array of `<resource>:<read|write>`, null for full access, as every key issued before), when it
 * stops working (`expires_at`, null: never; set at issue or when the key is rolled), when it was
 * last used (`last_used_at`, coarse: written at most once a minute per key), and its last four
 * characters for operators to recognise it (`key_last4`, null for keys issued before: the key itself
 * was never stored). Timestamps are ISO-8601 text.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('scopes', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('key_last4', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['key_last4', 'last_used_at', 'expires_at', 'scopes']) {
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
  }
}

import type { Kysely } from 'kysely';

/**
 * OAuth 2.0 clients (issue 20, item 3): one row per client of a clinic, with the SHA-256 of its
 * secret or its registered public keys (JWKS, for private_key_jwt), its scopes (a JSON array) and its
 * environment; and the `jti` of every client assertion accepted until it expires (replay refused on
 * every instance). Timestamps are ISO-8601 text.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text')
    .addColumn('jwks', 'text')
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_clients_clinic_idx').on('oauth_clients').columns(['clinic_id', 'created_at']).execute();

  await db.schema
    .createTable('oauth_client_assertions')
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('jti', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_client_assertions_pk', ['client_id', 'jti'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_client_assertions').execute();
  await db.schema.dropIndex('oauth_clients_clinic_idx').execute();
  await db.schema.dropTable('oauth_clients').execute();
}

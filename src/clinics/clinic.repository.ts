import type { DbOrTrx } from '../db/database.js';
import type { ApiKeyTable, ClinicTable } from './clinic.tables.js';
import { reusableQuery } from '../db/reusable-query.js';

export async function insertClinic(db: DbOrTrx, clinic: ClinicTable): Promise<void> {
  await db.insertInto('clinics').values(clinic).execute();
}

export async function findClinic(db: DbOrTrx, clinicId: string): Promise<ClinicTable | undefined> {
  return db.selectFrom('clinics').selectAll().where('id', '=', clinicId).executeTakeFirst();
}

export async function clinicExists(db: DbOrTrx, clinicId: string): Promise<boolean> {
  const row = await db.selectFrom('clinics').select('id').where('id', '=', clinicId).executeTakeFirst();
  return row !== undefined;
}

export async function countClinics(db: DbOrTrx): Promise<number> {
  const row = await db
    .selectFrom('clinics')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

export async function listClinics(db: DbOrTrx): Promise<ClinicTable[]> {
  return db.selectFrom('clinics').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function updateFreeShipping(db: DbOrTrx, clinicId: string, freeShipping: number): Promise<boolean> {
  const result = await db
    .updateTable('clinics')
    .set({ free_shipping: freeShipping })
    .where('id', '=', clinicId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertApiKey(db: DbOrTrx, key: ApiKeyTable): Promise<void> {
  await db.insertInto('api_keys').values(key).execute();
}

/**
 * Authentication's lookup: unscoped on purpose (the key is what tells us the clinic).
 * The hash column is unique and indexed.
 */
const apiKeyByHash = reusableQuery((db, keyHash: string) =>
  db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash),
);

/** Every partner request's lookup: compiled once (db/reusable-query.ts). */
export async function findApiKeyByHash(db: DbOrTrx, keyHash: string): Promise<ApiKeyTable | undefined> {
  return (await apiKeyByHash(db, keyHash))[0];
}

export async function findApiKey(db: DbOrTrx, apiKeyId: string): Promise<ApiKeyTable | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', apiKeyId).executeTakeFirst();
}

export async function listApiKeys(db: DbOrTrx, clinicId: string): Promise<ApiKeyTable[]> {
  return db.selectFrom('api_keys').selectAll().where('clinic_id', '=', clinicId).orderBy('created_at').execute();
}

export async function revokeApiKeyRow(db: DbOrTrx, apiKeyId: string, revokedAt: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: revokedAt })
    .where('id', '=', apiKeyId)
    .where('revoked_at', 'is', null)
    .execute();
}

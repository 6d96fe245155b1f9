import type { DbOrTrx, Trx } from '../db/database.js';
import type { Write, WriteTarget } from '../db/write.js';
import type { ApiKeyTable, ClinicTable } from './clinic.tables.js';
import { reusableQuery } from '../db/reusable-query.js';

/** A clinic's row, as a change's write (changes/run-change.ts). */
export function clinicInsert(change: WriteTarget, clinic: ClinicTable): Write {
  return change.statements.insertInto('clinics').values(clinic);
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

/** A key's row, as a change's write (changes/run-change.ts). */
export function apiKeyInsert(change: WriteTarget, key: ApiKeyTable): Write {
  return change.statements.insertInto('api_keys').values(key);
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

/** A key of one clinic: undefined for another clinic's key as for an unknown id. */
export async function findApiKeyOfClinic(db: DbOrTrx, clinicId: string, apiKeyId: string): Promise<ApiKeyTable | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', apiKeyId).where('clinic_id', '=', clinicId).executeTakeFirst();
}

export async function listApiKeys(db: DbOrTrx, clinicId: string): Promise<ApiKeyTable[]> {
  // Ids are UUIDv7: a key and its successor, made in the same millisecond, still come in order.
  return db.selectFrom('api_keys').selectAll().where('clinic_id', '=', clinicId).orderBy('created_at').orderBy('id').execute();
}

/** Revokes a key not yet revoked; false when it already was (or is not there). */
export async function revokeApiKeyRow(db: DbOrTrx, apiKeyId: string, revokedAt: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: revokedAt })
    .where('id', '=', apiKeyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Rolling's first step: sets the expiry of a key that still works (not revoked, not expired at
 * `now`) to `expiresAt`, never later than an expiry it already has. Returns the row as it is after,
 * or undefined when the key does not work any more (or does not exist): the caller tells which.
 */
export async function expireWorkingApiKey(
  trx: Trx,
  apiKeyId: string,
  now: string,
  expiresAt: string,
): Promise<ApiKeyTable | undefined> {
  return (
    trx
      .updateTable('api_keys')
      // The earlier of the two (a null expiry compares as unknown: the new one is taken).
      .set((eb) => ({
        expires_at: eb.case().when('expires_at', '<', expiresAt).then(eb.ref('expires_at')).else(expiresAt).end(),
      }))
      .where('id', '=', apiKeyId)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .returningAll()
      .executeTakeFirst()
  );
}

/**
 * Records a key's use at `at`, unless the row already says it was used after `notAfter` (another
 * instance wrote it within the minute): at most one change of the row a minute, whoever writes.
 */
export async function touchApiKeyUse(db: DbOrTrx, apiKeyId: string, at: string, notAfter: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: at })
    .where('id', '=', apiKeyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', notAfter)]))
    .execute();
}

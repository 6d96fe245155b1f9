import type { DbOrTrx } from '../db/database.js';

/*
 * The TOTP columns of an account, a staff member's or a portal user's (the two tables have the same
 * four: migration 018), for second-factor.service.ts.
 */

export type AccountTable = 'staff_members' | 'partner_users';

/** The columns of either table this module reads and writes. */
export interface SecondFactorColumns {
  id: string;
  email: string;
  totp_secret: string | null;
  totp_secret_key_id: string | null;
  totp_enabled_at: string | null;
  totp_last_step: number | null;
}

/** What either table's row offers: both have the same TOTP columns (migration 018). */
export async function findAccount(db: DbOrTrx, table: AccountTable, id: string): Promise<SecondFactorColumns | undefined> {
  const row = await db
    // The two tables share these columns: the query is the same on either.
    .selectFrom(table as 'partner_users')
    .select(['id', 'email', 'totp_secret', 'totp_secret_key_id', 'totp_enabled_at', 'totp_last_step'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row;
}

export async function updateAccount(
  db: DbOrTrx,
  table: AccountTable,
  id: string,
  values: Partial<Omit<SecondFactorColumns, 'id' | 'email'>>,
): Promise<void> {
  await db
    .updateTable(table as 'partner_users')
    .set(values)
    .where('id', '=', id)
    .execute();
}

/**
 * Records `step` as the last code used, only if it is later than the last one: of two sign-ins with
 * the same code, one succeeds (true).
 */
export async function useTotpStep(db: DbOrTrx, table: AccountTable, id: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable(table as 'partner_users')
    .set({ totp_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The accounts of `table` whose secret is sealed under another key than `keyId` (or none recorded). */
export async function listSecretsNotUnder(
  db: DbOrTrx,
  table: AccountTable,
  keyId: string,
): Promise<Pick<SecondFactorColumns, 'id' | 'totp_secret' | 'totp_secret_key_id'>[]> {
  return db
    .selectFrom(table as 'partner_users')
    .select(['id', 'totp_secret', 'totp_secret_key_id'])
    .where('totp_secret', 'is not', null)
    .where((eb) => eb.or([eb('totp_secret_key_id', 'is', null), eb('totp_secret_key_id', '!=', keyId)]))
    .execute();
}

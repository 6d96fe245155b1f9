import { sql } from 'kysely';
import type { DbOrTrx, Trx } from '../db/database.js';
import type { StateLicence } from './licensed-states.js';

/*
 * The pharmacy's licensed states are its own, shared by every clinic: unscoped on purpose, as the
 * carrier catalogue is. Both lookups use a primary key.
 */

/** The one marker row's id. */
const LIST_ID = 'pharmacy';

/** The set list (codes in order) and when it was set, or null when it was never set. */
export async function findLicensedStates(db: DbOrTrx): Promise<{ states: string[]; updatedAt: string } | null> {
  const [marker, rows] = await Promise.all([
    db.selectFrom('licensed_state_list').select('updated_at').where('id', '=', LIST_ID).executeTakeFirst(),
    db.selectFrom('licensed_states').select('state_code').orderBy('state_code').execute(),
  ]);
  if (!marker) return null;
  return { states: rows.map((r) => r.state_code), updatedAt: marker.updated_at };
}

/** Replaces the whole list inside the caller's transaction, and marks it set. */
export async function replaceLicensedStates(trx: Trx, states: readonly string[], at: string): Promise<void> {
  await trx.deleteFrom('licensed_states').execute();
  if (states.length > 0)
    await trx
      .insertInto('licensed_states')
      .values(states.map((state_code) => ({ state_code })))
      .execute();
  await trx.deleteFrom('licensed_state_list').where('id', '=', LIST_ID).execute();
  await trx.insertInto('licensed_state_list').values({ id: LIST_ID, updated_at: at }).execute();
}

/** True when the list was set (for the start banner). */
export async function licensedStatesSet(db: DbOrTrx): Promise<boolean> {
  return (await db.selectFrom('licensed_state_list').select('id').where('id', '=', LIST_ID).executeTakeFirst()) !== undefined;
}

/**
 * The licence of the patient's state, as two columns (1 or 0) to add to a query that has `patients`:
 * an order's checks and the carrier services read learn it in the query they already make (no round
 * trip, and no cache to keep coherent between servers sharing the database). Both are primary-key
 * lookups. Stored states are upper-case codes (the schemas admit only those): equality is enough.
 */
export const LICENCE_COLUMNS = [
  sql<number>`case when exists (select 1 from licensed_states where licensed_states.state_code = patients.state) then 1 else 0 end`.as(
    'licence_listed',
  ),
  sql<number>`case when exists (select 1 from licensed_state_list where licensed_state_list.id = ${sql.lit(LIST_ID)}) then 1 else 0 end`.as(
    'licence_list_set',
  ),
] as const;

/** The licence read with LICENCE_COLUMNS. */
export const licenceOfRow = (row: { licence_listed: number; licence_list_set: number }): StateLicence => ({
  listSet: row.licence_list_set === 1,
  listed: row.licence_listed === 1,
});

/**
 * The licence of one state, outside a patient's query: a partner's corrected address
 * (orders/destination-facts.ts). The same two primary-key lookups as LICENCE_COLUMNS.
 */
export async function findStateLicence(db: DbOrTrx, state: string): Promise<StateLicence> {
  const [listed, marker] = await Promise.all([
    db.selectFrom('licensed_states').select('state_code').where('state_code', '=', state).executeTakeFirst(),
    db.selectFrom('licensed_state_list').select('id').where('id', '=', LIST_ID).executeTakeFirst(),
  ]);
  return { listSet: marker !== undefined, listed: listed !== undefined };
}

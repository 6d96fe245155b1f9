import { sql, type Compilable, type OperationNodeSource } from 'kysely';
import type { Db, DbOrTrx, DialectName, Trx } from './database.js';

/** One write (an INSERT, UPDATE or DELETE built on the handle it is given), not yet run. */
export type Write = Compilable & OperationNodeSource;

/**
 * Runs writes that read nothing from one another, all or nothing.
 *
 * On PostgreSQL they go as one statement, each write a data-modifying CTE: a single statement is
 * atomic without BEGIN and COMMIT, so the database is asked once instead of n + 2 times (the
 * profile of POST medication-order on PostgreSQL was round trips: docs/performance.md). Foreign
 * keys are checked at the end of the statement, and a violation undoes all of the writes. List
 * parent rows before their children all the same: SQLite checks each statement as it runs.
 *
 * When more must happen in the same transaction (`within`: an Idempotency-Key's record), and on
 * SQLite (in process: no round trip to save), they run in order in one transaction instead.
 */
export async function writeTogether(
  db: Db,
  dialect: DialectName,
  writes: (handle: DbOrTrx) => Write[],
  within?: (trx: Trx) => Promise<void>,
): Promise<void> {
  if (dialect === 'postgres' && within === undefined) {
    const parts = writes(db).map((write, i) => sql`${sql.id(`write_${i}`)} as (${write})`);
    if (parts.length > 0) await sql`with ${sql.join(parts)} select 1`.execute(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    for (const write of writes(trx)) await trx.executeQuery(write.compile());
    await within?.(trx);
  });
}

import type { ControlledTransaction } from 'kysely';
import type { Database, Db, DialectName } from './database.js';
import { notifyAtCommit } from './dialect.js';
import { runWritesDirectly } from './direct-statement.js';
import { runOneStatement, writesAsOneStatement } from './one-statement.js';
import type { Write } from './write.js';

/** The database a change runs on, and which one it is (the only thing that decides how). */
export interface ChangeDatabase {
  readonly db: Db;
  readonly dialect: DialectName;
}

/** A change's transaction, when its work opened one (changes/run-change.ts opens it on first use). */
export type OpenedTransaction = Promise<ControlledTransaction<Database>> | undefined;

/**
 * Runs a change's kept writes, in order, all or nothing, and commits: how a change is executed, the
 * one place that decides it by database. `wake` names a channel on which other processes are woken
 * at commit (PostgreSQL NOTIFY; SQLite is one process and needs none). On failure, a transaction
 * this function opened is rolled back here; one the work opened is the caller's to undo
 * (`undoChange`).
 *
 * - PostgreSQL, no transaction opened: the writes as one statement, each a data-modifying CTE:
 *   atomic without BEGIN and COMMIT, one round trip instead of n + 2.
 * - SQLite, no transaction opened: the writes in one synchronous transaction on the driver, unless
 *   another request's transaction is open on the connection (then as below, after it).
 * - A transaction opened: the kept writes in it (on PostgreSQL as one statement when there are
 *   several), then COMMIT.
 */
export async function executeChange(
  database: ChangeDatabase,
  opened: OpenedTransaction,
  writes: readonly Write[],
  wake: string | null,
): Promise<void> {
  const { db, dialect } = database;
  if (opened === undefined) {
    if (writes.length === 0 && (wake === null || dialect === 'sqlite')) return;
    if (dialect === 'postgres') {
      // Events wake other processes through migration 003's trigger; a queue change names `wake`.
      const compiled = writes.map((write) => write.compile());
      await runOneStatement(db, writesAsOneStatement(compiled, wake));
      return;
    }
    if (
      runWritesDirectly(
        db,
        writes.map((write) => write.compile()),
      )
    )
      return;
    const trx = await db.startTransaction().execute();
    try {
      await commitIn(trx, dialect, writes, wake);
    } catch (error) {
      await rollBack(trx);
      throw error;
    }
    return;
  }
  await commitIn(await opened, dialect, writes, wake);
}

/** Undoes what a change's work ran in the transaction it opened (never throws: the work's own error is the one to see). */
export async function undoChange(opened: OpenedTransaction): Promise<void> {
  if (opened === undefined) return;
  const trx = await opened.catch(() => undefined);
  if (trx !== undefined) await rollBack(trx);
}

async function commitIn(
  trx: ControlledTransaction<Database>,
  dialect: DialectName,
  writes: readonly Write[],
  wake: string | null,
): Promise<void> {
  if (dialect === 'postgres' && writes.length > 1) {
    await runOneStatement(
      trx,
      writesAsOneStatement(
        writes.map((write) => write.compile()),
        null,
      ),
    );
  } else {
    for (const write of writes) await trx.executeQuery(write.compile());
  }
  if (wake !== null) await notifyAtCommit(trx, dialect, wake);
  await trx.commit().execute();
}

async function rollBack(trx: ControlledTransaction<Database>): Promise<void> {
  if (trx.isCommitted || trx.isRolledBack) return;
  await trx
    .rollback()
    .execute()
    .catch(() => undefined);
}

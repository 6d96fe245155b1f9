import type { Compilable, Kysely, OperationNodeSource } from 'kysely';
import type { Database } from './database.js';

/**
 * One write (an INSERT, UPDATE or DELETE) built and not yet run: a change keeps it and runs it with
 * the change's other rows (execute-change.ts).
 */
export type Write = Compilable & OperationNodeSource;

/**
 * What a change's writes are built with: statements compiled when the change runs them, never run
 * by whoever builds them (the root handle stands behind it; compiling needs no connection).
 */
export type StatementBuilder = Pick<Kysely<Database>, 'insertInto' | 'updateTable' | 'deleteFrom' | 'getExecutor'>;

/**
 * What a write builder takes: the change the write is for (changes/run-change.ts), which carries the
 * builder of its statements: the builder returns what it built, and the change decides how it runs.
 */
export interface WriteTarget {
  readonly statements: StatementBuilder;
}

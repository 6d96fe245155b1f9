import type { Compilable, OperationNodeSource } from 'kysely';

/**
 * One write (an INSERT, UPDATE or DELETE) built on any handle and not yet run: a change keeps it and
 * runs it with the change's other rows (changes/run-change.ts).
 */
export type Write = Compilable & OperationNodeSource;

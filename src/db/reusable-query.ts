import { createQueryId, type CompiledQuery, type Compilable } from 'kysely';
import type { DbOrTrx } from './database.js';
import { directStatement, type DirectStatement } from './direct-statement.js';

/**
 * A query of a hot path compiled once per database handle instead of at every request (Kysely's
 * recipe: compile, then run the compiled query with new parameters). `build` is called once, with a
 * marker in place of each argument (a null argument is bound as a null parameter); the compiled query's parameters at those places are replaced by
 * the arguments at each run. Only plain values may be arguments (a string or a number bound as one
 * parameter, never a list): a build that does anything else with an argument is refused the first
 * time it runs, so a mistake fails every test that calls it, not a request in production.
 *
 * A transaction is a new handle each time: a query run inside one is compiled as before.
 *
 * On the root handle the compiled statement runs straight on the driver (direct-statement.ts): on
 * SQLite while no transaction is open, without Kysely's ~27 promises; on PostgreSQL as a named
 * statement, parsed once per connection.
 */
export function reusableQuery<Args extends (string | number | null)[], Row>(
  build: (db: DbOrTrx, ...args: Args) => Compilable<Row>,
): (db: DbOrTrx, ...args: Args) => Promise<Row[]> {
  const compiled = new WeakMap<DbOrTrx, Compiled<Row>>();
  return async (db, ...args) => {
    let entry = compiled.get(db);
    if (entry === undefined) {
      // The markers stand in for the arguments at compile time only (strings where a number may go).
      const { query, slots } = compileWithMarkers(
        db,
        build as unknown as (db: DbOrTrx, ...markers: string[]) => Compilable<Row>,
        args.length,
      );
      entry = { query, slots, direct: directStatement(db, query.sql) };
      compiled.set(db, entry);
    }
    const parameters = [...entry.query.parameters];
    entry.slots.forEach((slot, i) => (parameters[slot] = args[i]));
    if (entry.direct?.available()) return entry.direct.rows<Row>(parameters);
    const result = await db.executeQuery<Row>({ ...entry.query, queryId: createQueryId(), parameters });
    return result.rows;
  };
}

interface Compiled<Row> {
  query: CompiledQuery<Row>;
  /** Where each argument goes among the query's parameters. */
  slots: number[];
  /** The statement run directly on the driver (undefined in a transaction). */
  direct: DirectStatement | undefined;
}

function compileWithMarkers<Row>(
  db: DbOrTrx,
  build: (db: DbOrTrx, ...markers: string[]) => Compilable<Row>,
  arity: number,
): { query: CompiledQuery<Row>; slots: number[] } {
  const markers = Array.from({ length: arity }, (_, i) => `\u0000reusable-query-argument-${i}\u0000`);
  const query = build(db, ...markers).compile();
  const slots = markers.map((marker) => query.parameters.indexOf(marker));
  const bound = query.parameters.filter((parameter) => markers.includes(parameter as string)).length;
  if (slots.some((slot) => slot < 0) || bound !== arity) {
    throw new Error(`reusableQuery: each argument must be bound exactly once as a parameter of: ${query.sql}`);
  }
  return { query, slots };
}

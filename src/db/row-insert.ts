import { createQueryId, type CompiledQuery, type Insertable, type RootOperationNode } from 'kysely';
import type { Database } from './database.js';
import type { StatementBuilder, Write } from './write.js';

/**
 * An INSERT of plain rows, compiled by Kysely once per shape instead of at every request (issue 19:
 * building and compiling a change's rows was about a sixth of an order's CPU). The shape is the
 * dialect, the table, the columns in order, the number of rows and the conflict clause; a new shape
 * is built and compiled by Kysely as before, and its SQL kept only if the parameters Kysely bound are
 * exactly the rows' values in column order (checked then, at the first use of each shape). After
 * that, a row of that shape costs its values only.
 *
 * Only plain values take the cached path: rows with an `undefined` value, an object (a raw SQL
 * expression, a Buffer) or columns that differ between rows, more than 64 rows, and handles with
 * plugins (which transform what they compile) are built by Kysely every time.
 *
 * The result is a `Write` like any other: a change runs it compiled (db/execute-change.ts), and it
 * can still be embedded in a Kysely query as an operation node.
 */
export function insertRows<T extends keyof Database>(
  handle: StatementBuilder,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  options: {
    doNothingOnConflict?: string;
    /** Compile once however many rows: for a writer whose batches have one fixed size (the request log's). */
    compileOnce?: boolean;
  } = {},
): Write {
  return new RowsInsert(handle, table, rows, options.doNothingOnConflict, options.compileOnce ?? false);
}

/** Shapes seen: SQL and root node when the shape may take the cached path, null when it never will. */
const shapes = new Map<string, { sql: string; node: RootOperationNode } | null>();
/** Bounded: the shapes come from the code and the validated row counts, so a few dozen are expected. */
const MAX_SHAPES = 1_000;
/** Larger inserts (the audit buffer's batches under load) are built each time: their cost is shared by their rows. */
const MAX_CACHED_ROWS = 64;

class RowsInsert implements Write {
  constructor(
    private readonly handle: StatementBuilder,
    private readonly table: string,
    private readonly rows: readonly Record<string, unknown>[],
    private readonly conflictColumn: string | undefined,
    private readonly compileOnce: boolean,
  ) {}

  toOperationNode(): RootOperationNode {
    return this.build().toOperationNode();
  }

  compile(): CompiledQuery {
    const executor = this.handle.getExecutor();
    // A handle with plugins transforms what it compiles: it always gets Kysely's own compile.
    const columns =
      (this.compileOnce || this.rows.length <= MAX_CACHED_ROWS) && executor.plugins.length === 0
        ? plainColumns(this.rows)
        : undefined;
    if (columns === undefined) return this.build().compile();
    const key = `${executor.adapter.constructor.name}|${this.table}|${this.conflictColumn ?? ''}|${String(this.rows.length)}|${columns.join(',')}`;
    const parameters = valuesInOrder(this.rows, columns);
    const known = shapes.get(key);
    if (known === null) return this.build().compile();
    if (known !== undefined) return { sql: known.sql, parameters, query: known.node, queryId: createQueryId() };
    const compiled = this.build().compile();
    const same =
      compiled.parameters.length === parameters.length &&
      compiled.parameters.every((value, i) => Object.is(value, parameters[i]));
    if (shapes.size < MAX_SHAPES) shapes.set(key, same ? { sql: compiled.sql, node: compiled.query } : null);
    return compiled;
  }

  private build() {
    const insert = this.handle.insertInto(this.table as keyof Database).values(this.rows);
    const column = this.conflictColumn;
    return column === undefined ? insert : insert.onConflict((oc) => oc.column(column as never).doNothing());
  }
}

/** The rows' columns when every row has the same ones in the same order and only plain values; else undefined. */
function plainColumns(rows: readonly Record<string, unknown>[]): string[] | undefined {
  const first = rows[0];
  if (first === undefined) return undefined;
  const columns = Object.keys(first);
  for (const row of rows) {
    const keys = row === first ? columns : Object.keys(row);
    if (keys.length !== columns.length) return undefined;
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i] as string;
      if (keys[i] !== column) return undefined;
      const value = row[column];
      if (value === undefined || (typeof value === 'object' && value !== null)) return undefined;
    }
  }
  return columns;
}

function valuesInOrder(rows: readonly Record<string, unknown>[], columns: readonly string[]): unknown[] {
  const values: unknown[] = [];
  for (const row of rows) for (const column of columns) values.push(row[column]);
  return values;
}

// The database of a composite ceiling, through the raw driver: BENCH_SQLITE_FILE (better-sqlite3,
// the project's pragmas: src/db/create-db.ts) or BENCH_PG_URL (pg, a pool of 10 as the project's,
// int8 as numbers). Both hold the project's own tables, migrated and provisioned by the project
// itself (setup.js). Statements are written once with `?` placeholders and prepared once: by
// better-sqlite3's prepare, by pg as named statements (prepared once per connection).
import process from 'node:process';
import Database from 'better-sqlite3';
import pg from 'pg';
import { numbered } from './order-tables.js';

function openSqlite(file) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  const prepared = new Map();
  const statement = (name, sql) => {
    let found = prepared.get(name);
    if (!found) prepared.set(name, (found = db.prepare(sql)));
    return found;
  };
  const inTransaction = db.transaction((writes) => {
    for (const { name, sql, values } of writes) statement(name, sql).run(values);
  });
  return {
    kind: 'sqlite',
    all: (name, sql, values) => statement(name, sql).all(values),
    one: (name, sql, values) => statement(name, sql).get(values),
    run: (name, sql, values) => {
      statement(name, sql).run(values);
    },
    /** Writes in one transaction (BEGIN … COMMIT), in order: SQLite checks each foreign key as it goes. */
    write(name, writes) {
      inTransaction(writes);
    },
    close: async () => db.close(),
  };
}

function openPostgres(url) {
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => undefined);
  const texts = new Map();
  const query = async (name, sql, values) => {
    let text = texts.get(name);
    if (text === undefined) texts.set(name, (text = numbered(sql)));
    return (await pool.query({ name, text, values })).rows;
  };
  return {
    kind: 'postgres',
    all: query,
    one: async (name, sql, values) => (await query(name, sql, values))[0],
    run: async (name, sql, values) => {
      await query(name, sql, values);
    },
    /**
     * Writes that read nothing from one another as one prepared statement, each a data-modifying
     * CTE: atomic without BEGIN and COMMIT, one round trip, as the project sends them
     * (src/db/write-together.ts). Every call of one `name` must have the same shape.
     */
    async write(name, writes) {
      let text = texts.get(name);
      if (text === undefined) {
        let n = 0;
        const parts = writes.map(({ sql }, i) => `w${i} AS (${sql.replace(/\?/g, () => `$${++n}`)})`);
        texts.set(name, (text = `WITH ${parts.join(', ')} SELECT 1`));
      }
      await pool.query({ name, text, values: writes.flatMap((write) => write.values) });
    },
    close: () => pool.end(),
  };
}

/** The database named by the environment. */
export function openDatabase() {
  if (process.env.BENCH_SQLITE_FILE) return openSqlite(process.env.BENCH_SQLITE_FILE);
  if (process.env.BENCH_PG_URL) return openPostgres(process.env.BENCH_PG_URL);
  throw new Error('a composite ceiling needs BENCH_SQLITE_FILE or BENCH_PG_URL');
}

import path from 'node:path';
import type { Database as SQLiteDatabase } from 'better-sqlite3';

/**
 * On SQLite the partner request log lives in a database file of its own, attached to the main
 * connection under this schema name (issue 22, item 3; docs/performance.md, "The request log").
 * Queries name the table `request_log` unqualified, and SQLite finds it there (migration 020 moved
 * it out of the main file), so repositories, tests and the command line do not change.
 *
 * Why a file of its own: the log is by far the busiest writer (a row per partner request), and in
 * the main file its pages went through the main WAL and its checkpoints, which `synchronous = NORMAL`
 * flushes to disk on the request's thread. The log accepts losing its last second already (rows are
 * buffered in memory for up to one), so its file runs `synchronous = OFF`: it is never flushed by
 * the server (the operating system writes it back), while the orders keep their durability. A
 * process crash loses no committed row (WAL); a power cut may lose the log's last writes.
 */
export const REQUEST_LOG_STORE = 'request_log_store';

/**
 * The log's page cache in KiB, instead of SQLite's 16 MB as better-sqlite3 builds it: rows are
 * appended in key order (time-ordered request ids) and read a page of a clinic at a time, so a few
 * hundred pages suffice (docs/performance.md, "Memory").
 */
export const REQUEST_LOG_CACHE_KIB = 2_000;

/**
 * The log's file beside the main one: `data/fulfillment.sqlite` → `data/fulfillment.request-log.sqlite`
 * (a file without an extension gets `.request-log`); in memory for an in-memory database.
 */
export function requestLogStoreFilename(filename: string): string {
  if (filename === ':memory:' || filename === '') return ':memory:';
  const extension = path.extname(filename);
  return extension === '' ? `${filename}.request-log` : `${filename.slice(0, -extension.length)}.request-log${extension}`;
}

/**
 * Attaches the log's file (creating it) and its table when missing. The table is made here, at every
 * open, rather than by a migration: the file can be missing while the main file's migrations are
 * done (deleted, or a copy of the main file alone), and the log then starts empty rather than failing.
 * Its shape is migration 020's on PostgreSQL: keyed by the request id, WITHOUT ROWID (the key is the
 * table: two b-trees per row with the clinic's index).
 */
export function attachRequestLogStore(sqlite: SQLiteDatabase, mainFilename: string): void {
  sqlite.prepare(`attach database ? as ${REQUEST_LOG_STORE}`).run(requestLogStoreFilename(mainFilename));
  sqlite.pragma(`${REQUEST_LOG_STORE}.journal_mode = WAL`);
  sqlite.pragma(`${REQUEST_LOG_STORE}.synchronous = OFF`);
  sqlite.pragma(`${REQUEST_LOG_STORE}.cache_size = ${-REQUEST_LOG_CACHE_KIB}`);
  sqlite.exec(`
    create table if not exists ${REQUEST_LOG_STORE}.request_log (
      request_id text primary key,
      clinic_id text not null,
      occurred_at text not null,
      method text not null,
      route text not null,
      status integer not null,
      duration_ms integer not null,
      api_key_id text,
      oauth_client_id text,
      idempotency_key text,
      error_code text,
      error_message text
    ) without rowid;
    create index if not exists ${REQUEST_LOG_STORE}.request_log_clinic_at_idx
      on request_log (clinic_id, occurred_at, request_id);
  `);
}

import { CompiledQuery, sql, type Compilable } from 'kysely';
import type { DbOrTrx, DialectName } from '../../src/db/database.js';

/*
 * Tests at a million rows (test/dashboard/dashboard-scale.test.ts, test/compounding/recall-scale.test.ts):
 * a bulk load of the seed, and what each database says a query reads. Asserted on rows read, never
 * on time: PostgreSQL's EXPLAIN ANALYZE counts the rows its scans produced and filtered out;
 * SQLite's query plan says whether it SEARCHes a table by an index or SCANs it whole.
 */

export interface Scan {
  type: string;
  relation: string;
  /** Rows the scan produced and the rows it read and filtered out, over all its loops. */
  rowsRead: number;
}

/** The scans of `tables` in PostgreSQL's plan of `query`, run (EXPLAIN ANALYZE), with the rows each read. */
export async function postgresScans(db: DbOrTrx, query: Compilable, tables: readonly string[]): Promise<Scan[]> {
  const compiled = query.compile();
  const result = await db.executeQuery<{ 'QUERY PLAN': unknown }>(
    CompiledQuery.raw(`explain (analyze, format json) ${compiled.sql}`, [...compiled.parameters]),
  );
  const plan = result.rows[0]?.['QUERY PLAN'] as [{ Plan: PlanNode }];
  const scans: Scan[] = [];
  const walk = (node: PlanNode) => {
    const relation = node['Relation Name'];
    if (relation && tables.includes(relation)) {
      const loops = node['Actual Loops'] ?? 1;
      const read =
        (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
      scans.push({ type: node['Node Type'], relation, rowsRead: read * loops });
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan[0].Plan);
  return scans;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** SQLite's query plan of `query`, one detail line per step ("SEARCH t USING INDEX i (c>?)"). */
export async function sqlitePlan(db: DbOrTrx, query: Compilable, comment = ''): Promise<string[]> {
  const compiled = query.compile();
  const result = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${comment}${compiled.sql}`, [...compiled.parameters]),
  );
  return result.rows.map((row) => row.detail);
}

/**
 * Runs `load` as a bulk load: in one transaction, without the seeded tables' secondary indexes, which
 * are then created again from their own definitions (one sort each instead of a million insertions),
 * and without checking foreign keys row by row (the seed refers to rows that exist, or to none the
 * queries read). The schema the queries meet is the migrations' own.
 */
export async function bulkLoad(
  db: DbOrTrx,
  dialect: DialectName,
  tables: readonly string[],
  load: (trx: DbOrTrx) => Promise<void>,
): Promise<void> {
  if (dialect === 'postgres') {
    await db.transaction().execute(async (trx) => {
      const indexes = await sql<{ name: string; definition: string }>`
        select i.indexname as name, i.indexdef as definition from pg_indexes i
        where i.schemaname = current_schema() and i.tablename in (${sql.join(tables)})
          and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`.execute(trx);
      for (const index of indexes.rows) await sql`drop index ${sql.id(index.name)}`.execute(trx);
      await sql`set local session_replication_role = replica`.execute(trx);
      await load(trx);
      await sql`set local session_replication_role = origin`.execute(trx);
      for (const index of indexes.rows) await sql.raw(index.definition).execute(trx);
    });
    return;
  }
  const indexes = await sql<{ name: string; definition: string }>`
    select name, sql as definition from sqlite_master
    where type = 'index' and sql is not null and tbl_name in (${sql.join(tables)})`.execute(db);
  await sql`pragma foreign_keys = off`.execute(db);
  await db.transaction().execute(async (trx) => {
    for (const index of indexes.rows) await sql`drop index ${sql.id(index.name)}`.execute(trx);
    await load(trx);
    for (const index of indexes.rows) await sql.raw(index.definition).execute(trx);
  });
  await sql`pragma foreign_keys = on`.execute(db);
}

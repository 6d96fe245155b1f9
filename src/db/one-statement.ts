import { createHash } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import type { DbOrTrx } from './database.js';
import { runNamedDirectly } from './direct-statement.js';

/**
 * PostgreSQL: a change's writes as one statement of data-modifying CTEs
 * (`with "write_0" as (…), "write_1" as (…) select 1`): atomic without BEGIN and COMMIT, one round
 * trip. The text is assembled from the writes' compiled SQL (their `$n` placeholders renumbered) and
 * kept per set of texts, with a name: run on the pool as a named statement, it is parsed and planned
 * once per connection instead of at every change (issue 19). `notify` names a channel to wake the
 * delivery workers of other processes (`pg_notify`, sent at commit).
 */
export interface OneStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** The prepared statement's name; undefined past the bound on kept texts (then parsed every time). */
  readonly name: string | undefined;
}

const texts = new Map<string, { sql: string; name: string | undefined }>();
/**
 * Texts kept (and so statements each connection may keep prepared): shapes come from the code and
 * the validated row counts, a few dozen in practice. Past the bound, new texts are assembled each
 * time and run unnamed, so no connection prepares more than this many.
 */
const MAX_TEXTS = 500;

export function writesAsOneStatement(writes: readonly CompiledQuery[], notify: string | null): OneStatement {
  const parameters: unknown[] = [];
  for (const write of writes) for (const parameter of write.parameters) parameters.push(parameter);
  if (notify !== null) parameters.push(notify);
  const key = `${notify === null ? '' : 'notify'}\u0000${writes.map((write) => write.sql).join('\u0000')}`;
  let text = texts.get(key);
  if (text === undefined) {
    const sql = assemble(writes, notify !== null);
    const named = texts.size < MAX_TEXTS;
    text = { sql, name: named ? `change_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}` : undefined };
    if (named) texts.set(key, text);
  }
  return { sql: text.sql, parameters, name: text.name };
}

/** Runs the statement: named on the pool of a root handle, else (a transaction's handle) through Kysely. */
export async function runOneStatement(db: DbOrTrx, statement: OneStatement): Promise<void> {
  if (statement.name !== undefined && (await runNamedDirectly(db, statement.name, statement.sql, statement.parameters))) return;
  await db.executeQuery(CompiledQuery.raw(statement.sql, [...statement.parameters]));
}

function assemble(writes: readonly CompiledQuery[], notify: boolean): string {
  let offset = 0;
  const parts = writes.map((write, i) => {
    const part = `"write_${String(i)}" as (${renumber(write.sql, offset)})`;
    offset += write.parameters.length;
    return part;
  });
  const tail = notify ? `select pg_notify($${String(offset + 1)}, current_schema())` : 'select 1';
  return parts.length === 0 ? tail : `with ${parts.join(', ')} ${tail}`;
}

/**
 * `$n` placeholders shifted by `offset`, outside quoted identifiers and string literals (Kysely binds
 * every value as a parameter, so a literal holding `$1` is not expected, but it must not be touched).
 */
export function renumber(sql: string, offset: number): string {
  if (offset === 0) return sql;
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const char = sql[i] as string;
    if (quote !== null) {
      out += char;
      if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      out += char;
      continue;
    }
    if (char === '$') {
      let end = i + 1;
      while (end < sql.length && (sql[end] as string) >= '0' && (sql[end] as string) <= '9') end++;
      if (end > i + 1) {
        out += `$${String(Number(sql.slice(i + 1, end)) + offset)}`;
        i = end - 1;
        continue;
      }
    }
    out += char;
  }
  return out;
}

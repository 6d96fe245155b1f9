import { sql, type Expression, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from '../db/database.js';
import { keysetPage } from './fhir-page.js';
import type { SearchPaging } from './fhir-resource.js';
import type { DateValue, SearchCriterion } from './fhir-search.js';

/*
 * The SQL the FHIR searches share: one table's keyset page with its count, and the SQL of the
 * criteria FHIR's parameter types define (string: case-insensitive starts-with by default; date:
 * ranges by precision).
 */

/**
 * The keyset page of one table's rows a filtered query selects (`base`: the table, its clinic and
 * the search's criteria; the table's primary key is `id`): the rows and their count side by side.
 */
export function tablePage<TB extends keyof Database>(
  base: SelectQueryBuilder<Database, TB, object>,
  paging: SearchPaging,
): Promise<{ rows: Selectable<Database[TB]>[]; total: number; hasMore: boolean }> {
  const id = sql.ref('id');
  return keysetPage(
    paging,
    async (afterId, limit) =>
      (await (afterId === null ? base : base.where(sql<SqlBool>`${id} > ${afterId}`))
        .selectAll()
        .orderBy(id)
        .limit(limit)
        .execute()) as (Selectable<Database[TB]> & { id: string })[],
    async () => (await base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n,
  );
}

/** `value` with LIKE's wildcards and escape character taken literally (ESCAPE '\'). */
function likeLiteral(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * A FHIR string search over some text columns (any of them matching any alternative): by default
 * case-insensitive starts-with, `:contains` anywhere, `:exact` the exact value (FHIR R4 §3.1.1.4.4).
 */
export function stringMatch(
  columns: readonly string[],
  criterion: Extract<SearchCriterion, { type: 'string' }>,
): Expression<SqlBool> {
  const alternatives = criterion.values.flatMap((value) =>
    columns.map((column) => {
      const ref = sql.ref(column);
      if (criterion.modifier === 'exact') return sql<SqlBool>`${ref} = ${value}`;
      const pattern =
        criterion.modifier === 'contains' ? `%${likeLiteral(value.toLowerCase())}%` : `${likeLiteral(value.toLowerCase())}%`;
      return sql<SqlBool>`lower(${ref}) like ${pattern} escape '\\'`;
    }),
  );
  return sql<SqlBool>`(${sql.join(alternatives, sql` or `)})`;
}

/** A date search over a YYYY-MM-DD column: any alternative, each its prefix against the day range it covers. */
export function dateMatch(column: string, criterion: Extract<SearchCriterion, { type: 'date' }>): Expression<SqlBool> {
  const ref = sql.ref(column);
  const one = ({ prefix, start, end }: DateValue) => {
    switch (prefix) {
      case 'eq':
        return sql<SqlBool>`(${ref} >= ${start} and ${ref} <= ${end})`;
      case 'ne':
        return sql<SqlBool>`(${ref} < ${start} or ${ref} > ${end})`;
      case 'lt':
        return sql<SqlBool>`${ref} < ${start}`;
      case 'le':
        return sql<SqlBool>`${ref} <= ${end}`;
      case 'gt':
        return sql<SqlBool>`${ref} > ${end}`;
      case 'ge':
        return sql<SqlBool>`${ref} >= ${start}`;
    }
  };
  return sql<SqlBool>`(${sql.join(criterion.values.map(one), sql` or `)})`;
}

import { sql, type Expression, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from '../db/database.js';
import type { SearchPaging } from './fhir-resource.js';
import type { DateValue, SearchCriterion, TokenValue } from './fhir-search.js';

/*
 * What the resource kinds share to answer a search: the page and its total in two queries side by
 * side, and the SQL of the criteria FHIR's parameter types define (string: case-insensitive
 * starts-with by default; date: ranges by precision; token: `system|code`).
 */

/**
 * A keyset page: `rows(afterId, limit)` reads up to `limit` rows with ids strictly after `afterId`,
 * ids ascending; `count()` counts every match. Both run at once; one more row than the page tells
 * whether another page exists.
 */
export async function keysetPage<Row extends { id: string }>(
  paging: SearchPaging,
  rows: (afterId: string | null, limit: number) => Promise<Row[]>,
  count: () => Promise<number | string | bigint>,
): Promise<{ rows: Row[]; total: number; hasMore: boolean }> {
  const [found, total] = await Promise.all([rows(paging.afterId, paging.count + 1), count()]);
  return { rows: found.slice(0, paging.count), total: Number(total), hasMore: found.length > paging.count };
}

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

/** The criterion of a parameter, when given with the type its definition says. */
export function criterionOf<T extends SearchCriterion['type']>(
  criteria: ReadonlyMap<string, SearchCriterion>,
  name: string,
  type: T,
): Extract<SearchCriterion, { type: T }> | undefined {
  const criterion = criteria.get(name);
  return criterion?.type === type ? (criterion as Extract<SearchCriterion, { type: T }>) : undefined;
}

/** The ids an `_id` criterion names (its codes), or undefined when the search has none. */
export function idCodesOf(criteria: ReadonlyMap<string, SearchCriterion>): string[] | undefined {
  return criterionOf(criteria, '_id', 'token')?.values.map((token) => token.code);
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

/** The identifier system of our own ids: RFC 3986 URIs, the id as `urn:uuid:<id>` (FHIR R4 §2.24.0.4). */
export const URI_SYSTEM = 'urn:ietf:rfc:3986';

/** Our identifier of a record (every resource carries it). */
export const ownIdentifier = (id: string) => ({ system: URI_SYSTEM, value: `urn:uuid:${id}` });

/**
 * The ids an `identifier` token names in our own system: `urn:uuid:<id>` or the bare id, with the
 * system absent or RFC 3986's. Another system (`http://hl7.org/fhir/sid/us-npi|…`) names none.
 */
export function ownIdsOf(tokens: readonly TokenValue[]): string[] {
  return tokens.flatMap((token) => {
    if (token.system !== undefined && token.system !== URI_SYSTEM) return [];
    return [token.code.startsWith('urn:uuid:') ? token.code.slice('urn:uuid:'.length) : token.code];
  });
}

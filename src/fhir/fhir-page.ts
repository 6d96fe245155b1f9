import type { SearchPaging } from './fhir-resource.js';
import type { SearchCriterion, TokenValue } from './fhir-search.js';

/*
 * What the resource kinds share to answer a search: the page and its total in two queries side by
 * side (the queries: fhir-page.repository.ts), a search's criteria by name, and our own identifiers.
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

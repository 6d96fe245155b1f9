import type { SearchQuery, TokenValue } from './fhir-search.js';

/*
 * The values of a parsed search's criteria (fhir-search.ts), as a repository filters on them. A
 * criterion not given is `undefined` (no filter); one given is the list of its alternatives, which
 * may be empty when none can match here (then the search matches nothing). Pure.
 */

/**
 * The codes of a token criterion, keeping an alternative only when its system (if given) is
 * `system`: `status=active`, `status=<system>|active`; `status=|active` (no system) when `system`
 * is undefined, as for `_id`.
 */
export function tokenCodes(query: SearchQuery, name: string, system?: string): string[] | undefined {
  const criterion = query.criteria.get(name);
  if (criterion === undefined) return undefined;
  if (criterion.type !== 'token') return [];
  const matches = (value: TokenValue) => value.system === undefined || value.system === (system ?? '');
  return criterion.values.filter(matches).map((value) => value.code);
}

/** The ids of a reference criterion (`patient=Patient/123` gives `123`). */
export function referenceIds(query: SearchQuery, name: string): string[] | undefined {
  const criterion = query.criteria.get(name);
  if (criterion === undefined) return undefined;
  return criterion.type === 'reference' ? [...criterion.values] : [];
}

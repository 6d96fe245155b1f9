import { useLocation } from 'preact-iso';
import { query } from '../api';

/**
 * A list's filters kept in the page's address (`?status=failed&clinic_id=…`): a filtered list can
 * be linked to and bookmarked, and Back returns to the filters before. Absent filters are ''.
 * `key` changes whenever a filter does (for useResource and usePager).
 */
export function useUrlFilters<Name extends string>(names: readonly Name[]) {
  const { path, query: current, route } = useLocation();
  const filters = Object.fromEntries(names.map((name) => [name, current[name] ?? ''])) as Record<Name, string>;
  return {
    filters,
    key: JSON.stringify(filters),
    setFilters: (next: Partial<Record<Name, string>>) => route(`${path}${query(next)}`),
  };
}

import { useEffect } from 'preact/hooks';
import { usePager } from './pager';

/** Rows per page of a list the API returns whole. */
export const CLIENT_PAGE_SIZE = 25;

/**
 * Pages of a list the API returns whole (clinics, a formulary, staff), shown with the same <Pager>
 * as keyset lists: the cursor is the offset of the page. New `resetKey` (a filter) starts again at
 * the first page; a page left empty by a removal steps back to the one before.
 */
export function useClientPages<T>(items: readonly T[] | null, resetKey: string, size = CLIENT_PAGE_SIZE) {
  const pager = usePager(resetKey);
  const offset = Number(pager.cursor ?? 0);
  const total = items?.length ?? 0;
  const stranded = items !== null && offset > 0 && offset >= total;
  useEffect(() => {
    if (stranded) pager.previous();
  }, [stranded]);
  return {
    pager,
    rows: items ? items.slice(offset, offset + size) : [],
    nextCursor: offset + size < total ? String(offset + size) : null,
  };
}

import { useState } from 'preact/hooks';

/**
 * Keyset pages: the cursor of the page shown, and the way back. `cursor` goes into the list's query;
 * the buttons move with the `next_cursor` the last page answered.
 */
export function usePager(resetKey: string) {
  const [state, setState] = useState<{ key: string; trail: (string | undefined)[] }>({ key: resetKey, trail: [undefined] });
  // New filters start again at the first page.
  const trail = state.key === resetKey ? state.trail : [undefined];
  const cursor = trail[trail.length - 1];
  return {
    cursor,
    page: trail.length,
    next: (nextCursor: string) => setState({ key: resetKey, trail: [...trail, nextCursor] }),
    previous: () => setState({ key: resetKey, trail: trail.slice(0, -1) }),
  };
}

/** `label` names the navigation landmark: give each pager of a page with several its own (e.g. "Pages of deliveries"). */
export function Pager({
  pager,
  nextCursor,
  label = 'Pages',
}: {
  pager: ReturnType<typeof usePager>;
  nextCursor: string | null | undefined;
  label?: string;
}) {
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" onClick={pager.previous} disabled={pager.page <= 1}>
        Previous page
      </button>
      <span>Page {pager.page}</span>
      <button type="button" onClick={() => nextCursor && pager.next(nextCursor)} disabled={!nextCursor}>
        Next page
      </button>
    </nav>
  );
}

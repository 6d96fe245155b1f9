import { useCanChange } from './session';

/** Said where a page's changes are hidden from a viewer: why, and who can. */
export function ReadOnlyNote() {
  if (useCanChange()) return null;
  return (
    <p class="hint read-only">You have read-only access (viewer): the changes on this page are for your clinic’s developers.</p>
  );
}

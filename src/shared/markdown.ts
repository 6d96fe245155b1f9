/**
 * Sections of the docs written from the code (docs/configuration.md's variables, docs/console.md's
 * roles): a table's row, and a page's section between two markers replaced. Pure.
 */

/** One row of a Markdown table, its cells' pipes escaped. */
export function markdownRow(cells: readonly string[]): string {
  return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
}

/** `page` with what lies between `begin` and `end` replaced by `section`; throws naming `pageName` when the markers are missing. */
export function withGeneratedSection(
  page: string,
  markers: { begin: string; end: string; pageName: string },
  section: string,
): string {
  const { begin, end, pageName } = markers;
  const from = page.indexOf(begin);
  const to = page.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${pageName} must hold the markers ${begin} and ${end}`);
  return page.slice(0, from + begin.length) + section + page.slice(to);
}

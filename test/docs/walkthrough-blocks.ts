import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The shell blocks of the README and docs/, as the walkthrough test (walkthroughs.test.ts) runs them.
 *
 * Every ```bash or ```sh block carries a marker on the line before it:
 * - `<!-- walkthrough: run -->`: a step, run in order in one bash shell;
 * - `<!-- walkthrough: run, expects 400 401 -->`: a step whose curl calls may answer these statuses
 *   (any other non-2xx fails the run, as it does in a plain `run` step);
 * - `<!-- walkthrough: skip (why) -->`: shown, never run (production, another terminal, a placeholder).
 * A block without a marker fails the test, so a new example is run, or says why not.
 *
 * The README's walkthrough comes first, then the pages in the order its list marked
 * `<!-- walkthrough: order -->` gives. A step may leave two values for the reader to fill in from
 * the server's banner, written as `KEY=dev_…` and `CLINIC=…`: the test fills them with its server's.
 * Any other value a step needs comes from an earlier answer (`ORDER=$(curl … | jq -r …)`) or a file
 * the server keeps (`$(cat data/admin-token)`), so it runs as written. The rules on what a step may
 * assign and on the answers it shows are in walkthrough-rules.ts.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

/** What the reader fills in from the banner: the test's own values replace these lines. */
export const FILL_INS = ['KEY', 'CLINIC'] as const;

export interface ShellBlock {
  /** `README.md:123`: the page and the line of the opening fence. */
  where: string;
  /** The page it is on (`README.md`, `docs/orders.md`). */
  page: string;
  marker: { run: true; expects: number[] } | { run: false; why: string } | null;
  code: string;
}

const FENCE = /^(\s*)```(bash|sh|shell)\s*$/;
const MARKER = /^\s*<!-- walkthrough: (run(?:, expects ((?:\d{3}\s*)+))?|skip \((.+)\)) -->\s*$/;
const ORDER_MARKER = '<!-- walkthrough: order -->';

/**
 * The pages in the order they are walked: the README, then the pages its list names, then every
 * other page of docs/ (whose blocks must all be skipped: walkthroughs.test.ts holds it).
 */
export function walkthroughPages(): string[] {
  const listed = listedPages();
  const others = readdirSync(path.join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`)
    .filter((page) => !listed.includes(page))
    .sort();
  return ['README.md', ...listed, ...others];
}

/** The pages of the README's numbered list after `<!-- walkthrough: order -->`, in its order. */
export function listedPages(): string[] {
  const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.trim() === ORDER_MARKER);
  if (start < 0) throw new Error(`README.md has no ${ORDER_MARKER} before the walkthroughs' list`);
  const pages: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '' && pages.length === 0) continue;
    const item = /^\d+\.\s.*?\]\((docs\/[\w.-]+\.md)\)/.exec(line);
    if (!item?.[1]) break;
    pages.push(item[1]);
  }
  return pages;
}

/** Every shell block of a page, with its marker (null when it has none). */
export function shellBlocks(page: string): ShellBlock[] {
  const lines = readPage(page).split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) {
      // Any other fence (json, ts, …) is skipped whole, so that its content is never read as markdown.
      if (/^\s*```/.test(lines[i] ?? '')) i = closingFence(lines, i);
      continue;
    }
    const indent = open[1]?.length ?? 0;
    const end = closingFence(lines, i);
    const code = lines
      .slice(i + 1, end)
      .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
      .join('\n');
    let previous = i - 1;
    while (previous >= 0 && (lines[previous] ?? '').trim() === '') previous--;
    blocks.push({ where: `${page}:${i + 1}`, page, marker: markerOf(lines[previous] ?? ''), code });
    i = end;
  }
  return blocks;
}

/** A page's text. */
export function readPage(page: string): string {
  return readFileSync(path.join(ROOT, page), 'utf8');
}

function closingFence(lines: string[], open: number): number {
  for (let j = open + 1; j < lines.length; j++) if (/^\s*```\s*$/.test(lines[j] ?? '')) return j;
  return lines.length;
}

function markerOf(line: string): ShellBlock['marker'] {
  const match = MARKER.exec(line);
  if (!match) return null;
  if (match[3] !== undefined) return { run: false, why: match[3] };
  return { run: true, expects: (match[2] ?? '').trim().split(/\s+/).filter(Boolean).map(Number) };
}

/** A line that leaves a value to fill in (`NAME=…`, `NAME=dev_...`), with the name it sets. */
export function fillInOf(line: string): string | undefined {
  return /^\s*([A-Z_]+)=\S*(?:…|\.\.\.)\S*\s*(?:#.*)?$/.exec(line)?.[1];
}

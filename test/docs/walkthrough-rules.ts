import path from 'node:path';
import type { ShellBlock } from './walkthrough-blocks.js';

/**
 * What the walkthrough test holds a page's steps to, besides running them (walkthroughs.test.ts):
 *
 * - **Variables.** A page names the shell variables it sets after itself: `ORDERS_PATIENT` on
 *   docs/orders.md, `WEBHOOKS_ORDER` on docs/webhooks.md, `FHIR` on docs/fhir.md. Only the README
 *   sets the shared ones (`BASE`, `KEY`, `CLINIC`, `H`, `ADMIN`, `PRACTITIONER`, `PATIENT`…), and no
 *   variable is set on two pages: walking one page never changes what another relies on (a page
 *   that once set `ORDER` made a later page cancel the wrong order).
 * - **Answers shown.** A `# → …` comment (continued by the comment lines indented under it) shows
 *   what the step prints: each one must be in its step's output, in order, spaces aside, `…`
 *   standing for anything (a time, the rest of a list; with an id's first characters before it,
 *   `5946d11d-…`, any id). Other comments are not compared.
 * - **The banner.** The README's sample of the start banner is what a first start prints, its
 *   values aside (the port, the paths, the token, the clinic and the key).
 */

const SHARED_PAGE = 'README.md';

/** `docs/request-log.md` → `REQUEST_LOG`: the prefix of the variables the page sets. */
export function variablePrefix(page: string): string {
  return path
    .basename(page, '.md')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_');
}

/** What breaks the rule on variables: a page's variable not named after it, or one set on two pages. */
export function variableProblems(steps: ShellBlock[]): string[] {
  const problems: string[] = [];
  const pagesOf = new Map<string, Set<string>>();
  for (const step of steps) {
    for (const name of assignmentsOf(step.code)) {
      const prefix = variablePrefix(step.page);
      if (step.page !== SHARED_PAGE && name !== prefix && !name.startsWith(`${prefix}_`))
        problems.push(`${step.where}: ${name} is set, but this page's variables are named ${prefix}_…`);
      pagesOf.set(name, (pagesOf.get(name) ?? new Set()).add(step.page));
    }
  }
  for (const [name, pages] of pagesOf)
    if (pages.size > 1) problems.push(`${name} is set on ${[...pages].join(' and ')}: only one page may set it`);
  return problems;
}

/**
 * The shell variables a step sets: `NAME=…` and `export NAME=…` statements, wherever a statement
 * starts (a line, after `;`, `&&`, `&`…), not `NAME=value command` (which sets it for the command only).
 */
export function assignmentsOf(code: string): string[] {
  const names: string[] = [];
  for (const words of statementsOf(code)) {
    let rest = words;
    while (/^(then|do|else|\{|!)$/.test(rest[0] ?? '')) rest = rest.slice(1);
    const declared = /^(export|local|declare|readonly)$/.test(rest[0] ?? '');
    if (declared) rest = rest.slice(1).filter((word) => !word.startsWith('-'));
    const assigned = rest.map((word) => /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word)?.[1]);
    const command = assigned.findIndex((name) => name === undefined);
    // A command, or `NAME=value command`: the command runs with the value, the shell keeps nothing.
    if (!declared && command >= 0) continue;
    for (const name of assigned) if (name !== undefined && name !== '_') names.push(name);
  }
  return names;
}

/**
 * The code's simple statements, each as its words: split where bash would end one (a line break,
 * `;`, `&`, `&&`, `||`, `|`) outside quotes and `$( … )`, and into words at spaces outside them.
 * Comments are dropped. Enough of bash for the assignments of a walkthrough, not a parser.
 */
function statementsOf(code: string): string[][] {
  const statements: string[][] = [];
  let words: string[] = [];
  let word = '';
  const nesting: string[] = [];
  const endWord = () => {
    if (word !== '') words.push(word);
    word = '';
  };
  const endStatement = () => {
    endWord();
    if (words.length > 0) statements.push(words);
    words = [];
  };
  for (let i = 0; i < code.length; i++) {
    const c = code[i] ?? '';
    const inside = nesting.at(-1);
    if (inside === "'") {
      if (c === "'") nesting.pop();
      word += c;
      continue;
    }
    if (c === '\\') {
      word += c + (code[i + 1] ?? '');
      i++;
      continue;
    }
    if (inside === '"') {
      if (c === '"') nesting.pop();
      else if (c === '$' && code[i + 1] === '(') nesting.push('(');
      word += c;
      continue;
    }
    if (c === "'" || c === '"') nesting.push(c);
    else if (c === '(') nesting.push('(');
    else if (c === ')' && inside === '(') nesting.pop();
    else if (inside === undefined) {
      if (c === '#' && word === '') {
        while (i + 1 < code.length && code[i + 1] !== '\n') i++;
        continue;
      }
      if (c === ' ' || c === '\t') {
        endWord();
        continue;
      }
      const redirect = word.endsWith('>') || code[i + 1] === '>';
      if (c === '\n' || c === ';' || c === '|' || (c === '&' && !redirect)) {
        if ((c === '&' || c === '|') && code[i + 1] === c) i++;
        endStatement();
        continue;
      }
    }
    word += c;
  }
  endStatement();
  return statements;
}

/** The answers a step shows: each `# → …` comment, joined with the comment lines indented under it. */
export function samplesOf(code: string): string[] {
  const samples: string[][] = [];
  let current: string[] | undefined;
  for (const line of code.split('\n')) {
    const start = /^\s*# →\s?(.*)$/.exec(line);
    const more = /^\s*#\s{2,}(\S.*)$/.exec(line);
    if (start) samples.push((current = [start[1] ?? '']));
    else if (current && more) current.push(more[1] ?? '');
    else current = undefined;
  }
  return samples.map((lines) => lines.join(' '));
}

/** The first answer shown that the output does not hold after the ones before it; undefined when all are there. */
export function missingSample(output: string, samples: string[]): string | undefined {
  let rest = withoutSpaces(output);
  for (const sample of samples) {
    const parts = sample.split(ELIDED).map((part) => escapeRegExp(withoutSpaces(part)));
    const pattern = new RegExp(parts.join('[\\s\\S]*?'));
    const found = pattern.exec(rest);
    if (!found) return sample;
    rest = rest.slice(found.index + found[0].length);
  }
  return undefined;
}

/** `…`, with the characters of an id written before it (`5946d11d-…`, `dev_…`): anything. */
const ELIDED = /[\w-]*…/;

function withoutSpaces(text: string): string {
  return text.replace(/\s+/g, '');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A start banner's lines, from `Partner Fulfillment API (…) on …` to `This key is shown only once…`,
 * each with its values written as the README writes them (port 3000, `/path/to/clone`, `…` for the
 * token, the clinic and the key): the README's sample and a server's output compare equal.
 */
export function bannerOf(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^Partner Fulfillment API \(\w+\) on /.test(line));
  const end = lines.findIndex((line, i) => i > start && line.includes('This key is shown only once'));
  if (start < 0 || end < 0) return [];
  return lines.slice(start, end + 1).map((line) =>
    line
      .trimEnd()
      .replace(/(https?:\/\/127\.0\.0\.1):\d+/g, '$1:3000')
      .replace(/^(\s*database: SQLite ).*(\/data\/fulfillment\.sqlite)$/, '$1/path/to/clone$2')
      .replace(/^(\s*(?:operator token \(.*\)|clinic_id|x-api-key): ).*$/, '$1…'),
  );
}

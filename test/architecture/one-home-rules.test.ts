import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/**
 * Small rules with one home each (issue 38, item 3; STYLE.md, "A helper copied where it was
 * needed"): a copy of one elsewhere in src/ drifts from it. Each entry names the rule, its home (the
 * files allowed to write it) and the shapes a copy takes. A new exception is added here with its
 * reason, or the copy calls the home.
 */
interface Rule {
  readonly rule: string;
  readonly home: readonly string[];
  readonly copies: readonly RegExp[];
  /** Files outside the home that may still write it, each with its reason. */
  readonly exceptions?: ReadonlyMap<string, string>;
}

const RULES: readonly Rule[] = [
  {
    rule: 'a calendar date (YYYY-MM-DD naming a day of the calendar)',
    home: ['shared/calendar-date.ts'],
    copies: [/getUTCDate\(\)\s*===/, /\.toISOString\(\)\.slice\(0, 10\)\s*!==/, /\bisLeapYear\b/, /function isCalendar/],
  },
  {
    rule: 'one millisecond later (the next step of one change)',
    home: ['shared/instants.ts'],
    copies: [/Date\.parse\([^)]*\)\s*\+\s*1\)/, /getTime\(\)\s*\+\s*1\)/],
  },
  {
    rule: 'whitespace collapsed (trimmed, each run one space)',
    home: ['shared/text.ts'],
    copies: [/\\s\+\/g,\s*' '/],
  },
  {
    rule: 'blank text stored as null',
    home: ['shared/text.ts'],
    copies: [/\.trim\(\)\s*\|\|\s*null/, /trimmed\s*\?\s*trimmed\s*:\s*null/, /\bconst blankToNull\b/],
  },
  {
    rule: 'the formula\u2019s JSON columns read or written (ingredients, restricted_states, a version\u2019s formula)',
    home: ['medications/formula.ts'],
    copies: [/JSON\.(parse|stringify)\([^)]*(ingredients|restricted_states|formula)/],
    exceptions: new Map([
      [
        'holds/intake-hold.ts',
        'in the hands of the allergy-classes change (issue 39) while it lands; it calls ingredientsOf next',
      ],
    ]),
  },
  {
    rule: 'a cursor\u2019s encoding (a JSON array in base64url)',
    home: ['shared/opaque-cursor.ts'],
    copies: [/'base64url'\)\.toString\('utf8'\)/, /JSON\.stringify\(.*toString\('base64url'\)/],
  },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(SRC, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

const FILES = sourceFiles(SRC).map((file) => ({ file, lines: readFileSync(path.join(SRC, file), 'utf8').split('\n') }));

describe('small rules have one home', () => {
  it.each(RULES.map((rule) => [rule.rule, rule] as const))(
    'when src/ is read, then %s is written only in its home',
    (_, rule) => {
      const copies = FILES.filter(({ file }) => !rule.home.includes(file) && !rule.exceptions?.has(file)).flatMap(
        ({ file, lines }) =>
          lines.flatMap((line, index) =>
            rule.copies.some((copy) => copy.test(line)) ? [`${file}:${String(index + 1)}: ${line.trim()}`] : [],
          ),
      );
      expect(copies, `call ${rule.home.join(' or ')} instead`).toEqual([]);
    },
  );

  it('when a copy is written, then the check finds it', () => {
    const [calendar, later, spaces] = RULES;
    expect(calendar?.copies.some((copy) => copy.test('return at.getUTCDate() === d;'))).toBe(true);
    expect(spaces?.copies.some((copy) => copy.test("const tidy = (text) => text.trim().replace(/\\s+/g, ' ');"))).toBe(true);
    expect(later?.copies.some((copy) => copy.test('const at = new Date(Date.parse(now) + 1).toISOString();'))).toBe(true);
  });
});

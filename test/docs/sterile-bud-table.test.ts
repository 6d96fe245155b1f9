import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STORAGES, type Storage } from '../../src/medications/beyond-use.js';
import { fillBeyondUse } from '../../src/medications/fill-beyond-use.js';
import {
  STERILE_CATEGORIES,
  STERILIZATIONS,
  sterileLimit,
  type SterileCondition,
} from '../../src/medications/sterile-beyond-use.js';

/*
 * docs/compounding.md's USP <797> table and its pharmacy-day example are what the code does: each row
 * of the table is compared with src/medications/sterile-beyond-use.ts, every valid condition is
 * covered by exactly one row, and the evening fill's dates are the ones the fill computes.
 */

const PAGE = readFileSync(path.resolve(import.meta.dirname, '../../docs/compounding.md'), 'utf8');

/** The rows of the table under "### Sterile preparations (USP <797>, 2023)", as cells. */
function tableRows(): string[][] {
  const section = PAGE.slice(PAGE.indexOf('### Sterile preparations (USP <797>, 2023)'));
  const lines = section.split('\n');
  const start = lines.findIndex((line) => line.startsWith('| category'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const either = <T>(cell: string, any: readonly T[], named: Record<string, T>): readonly T[] => {
  if (cell === 'any') return any;
  const value = named[cell];
  if (value === undefined) throw new Error(`unknown cell "${cell}"`);
  return [value];
};

/** The conditions a row covers. */
function conditionsOf(row: string[]): SterileCondition[] {
  const [category = '', preparation = '', components = '', tested = ''] = row;
  const conditions: SterileCondition[] = [];
  for (const sterilization of either(preparation, STERILIZATIONS, {
    aseptic: 'aseptic',
    'terminally sterilized': 'terminally_sterilized',
  } as const))
    for (const nonsterile of either(components, [true, false], { 'one or more non-sterile': true, 'sterile only': false }))
      for (const testedValue of either(tested, [true, false], { yes: true, no: false }))
        conditions.push({
          category: Number(category) as SterileCondition['category'],
          sterilization,
          nonsterile_component: nonsterile,
          sterility_tested: testedValue,
        });
  return conditions;
}

/** A limit cell as the code writes it: `12 hours`, `1 day`, `45 days`, `none`. */
function limitOf(cell: string): ReturnType<typeof sterileLimit> {
  if (cell === 'none') return null;
  const match = /^(\d+) (hours?|days?)$/.exec(cell);
  if (!match) throw new Error(`unknown limit "${cell}"`);
  return { unit: match[2]?.startsWith('hour') ? 'hours' : 'days', amount: Number(match[1]) };
}

const key = (c: SterileCondition) =>
  [c.category, c.sterilization, c.nonsterile_component, c.sterility_tested].map(String).join('/');

describe('docs/compounding.md’s USP <797> table and the code (pure)', () => {
  const rows = tableRows();

  it('when the table is read, then it has the nine rows of USP <797>’s three tables', () => {
    expect(rows).toHaveLength(9);
  });

  it('when each row is compared with sterile-beyond-use.ts, then every storage’s limit is the same', () => {
    for (const row of rows) {
      const limits = row.slice(4, 7);
      for (const condition of conditionsOf(row)) {
        STORAGES.forEach((storage: Storage, index) => {
          expect(sterileLimit(condition, storage), `${row.join(' | ')} → ${storage}`).toEqual(limitOf(limits[index] ?? ''));
        });
      }
    }
  });

  it('when every condition the formulary accepts is listed, then exactly one row of the table covers it', () => {
    const covered = rows.flatMap(conditionsOf).map(key);
    for (const category of STERILE_CATEGORIES)
      for (const sterilization of STERILIZATIONS)
        for (const nonsterile of [true, false])
          for (const tested of [true, false]) {
            // Category 3 requires sterility testing: the formulary refuses it untested (sterileProblems).
            if (category === 3 && !tested) continue;
            const condition = { category, sterilization, nonsterile_component: nonsterile, sterility_tested: tested };
            expect(
              covered.filter((k) => k === key(condition)),
              key(condition),
            ).toHaveLength(1);
          }
  });
});

describe('docs/compounding.md’s evening fill in the pharmacy’s day (pure)', () => {
  const EVENING = '2026-03-03T01:30:00.000Z'; // 20:30 on 2 March in New York
  const NEW_YORK = 'America/New_York';

  it('when a non-aqueous preparation is compounded at 20:30 in New York, then its 90 days count from that day: 2026-05-31', () => {
    const formula = {
      preparation: 'non_sterile',
      bud_category: 'non_aqueous',
      storage: 'room',
      beyond_use_days: null,
      sterile: null,
    } as const;
    expect(PAGE).toContain('is beyond use on **2026-05-31**');
    expect(fillBeyondUse(formula, EVENING, NEW_YORK, []).beyond_use_date).toBe('2026-05-31');
    expect(fillBeyondUse(formula, EVENING, 'UTC', []).beyond_use_date).toBe('2026-06-01');
  });

  it('when a refrigerated Category 1 CSP is compounded then, then it ends 24 hours later, on 3 March in New York', () => {
    const formula = {
      preparation: 'sterile',
      bud_category: 'aqueous_preserved',
      storage: 'refrigerated',
      beyond_use_days: null,
      sterile: { category: 1, sterilization: 'aseptic', nonsterile_component: false, sterility_tested: false },
    } as const;
    expect(fillBeyondUse(formula, EVENING, NEW_YORK, [])).toMatchObject({
      beyond_use_at: '2026-03-04T01:30:00.000Z',
      beyond_use_date: '2026-03-03',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { renderCompoundingRecord } from '../../src/documents/compounding-record.js';
import type { BudBasis } from '../../src/documents/compounding-record.types.js';
import { ingredient, recordInput } from './inputs.js';
import { readPdf } from './pdf-text.js';

describe('the compounding record', () => {
  it('when a fill is recorded, then the record holds the formula, every ingredient lot, the people, the date and its basis', async () => {
    const { pages, text } = await readPdf(await renderCompoundingRecord(recordInput()));

    expect(pages).toHaveLength(1);
    for (const element of [
      'Compounding record',
      'Riverside Compounding Pharmacy',
      'Rx number 1000123',
      'Fill number 1',
      'Patient Jane Q. Doe',
      'Prescriber Dr. Alan Smith, MD',
      'Formula Semaglutide 2.5 mg/mL injection, version 3',
      'Preparation Sterile (USP <797>)',
      'Lot L2603-01',
      'Quantity made 2 mL',
      // 14:05 UTC is 9:05 in New York in March before daylight saving time.
      'Compounded by Chris Tech, CPhT, Mar 2, 2026, 9:05 AM EST',
      'Checked by Maria Kim, RPh, Mar 2, 2026, 10:30 AM EST',
      'Beyond-use date Apr 6, 2026',
      'USP <797>, Category 2, aseptically processed, sterile components, refrigerated: 10 days from the day of compounding',
      'Storage Refrigerate at 2-8 °C (36-46 °F). Do not freeze.',
      '1 Semaglutide (base) SMG-88121 Nov 30, 2026 5 mg Letco Medical',
      '2 Bacteriostatic water BW-2211 Feb 28, 2027 2 mL Letco Medical',
      'Page 1 of 1',
    ]) {
      expect(text).toContain(element);
    }
  });

  it.each<[BudBasis, string]>([
    [
      { kind: 'standard', standard: 'USP <795>', row: 'Table 4, aqueous, preserved', days: 35 },
      'USP <795>, Table 4, aqueous, preserved: 35 days',
    ],
    [{ kind: 'entry_days', days: 14 }, "The formulary entry's own 14 days"],
    [
      { kind: 'ingredient_lot', ingredient: 'Semaglutide (base)', lot_number: 'SMG-88121', expires_on: '2026-03-20' },
      'Limited by the ingredient lot expiring first: Semaglutide (base), lot SMG-88121, expires Mar 20, 2026',
    ],
  ])('when the beyond-use date rests on %o, then the record says so', async (basis, said) => {
    const input = recordInput({ beyond_use: { date: '2026-03-20', time: '23:59', basis } });
    const { text } = await readPdf(await renderCompoundingRecord(input));

    expect(text).toContain(said);
    expect(text).toContain('Beyond-use date Mar 20, 2026 11:59 PM');
  });

  it('when the pharmacist has not checked the fill yet, then the record says it is not checked', async () => {
    const { text } = await readPdf(await renderCompoundingRecord(recordInput({ checked: null })));

    expect(text).toContain('Checked by Not yet checked by a pharmacist');
  });

  it('when a fill has forty ingredients, then the record runs over pages, each numbered, with the header again and every lot once', async () => {
    const ingredients = Array.from({ length: 40 }, (_, index) => ingredient(index + 1));
    const { pages, text } = await readPdf(await renderCompoundingRecord(recordInput({ ingredients })));

    expect(pages.length).toBeGreaterThan(1);
    pages.forEach((page, index) => {
      expect(page.text).toContain(`Page ${index + 1} of ${pages.length}`);
      expect(page.text).toContain('Ingredient Lot Lot expires Quantity Supplier');
      for (const piece of page.pieces) expect(piece.top + piece.size).toBeLessThanOrEqual(page.height);
    });
    for (const { lot_number } of ingredients) {
      expect(text.split(lot_number).length - 1, lot_number).toBe(1);
    }
    expect(text).toContain('Ingredients (40)');
  });

  it('when an ingredient name is long, then it wraps within its column and the row grows', async () => {
    const name = 'Polyethylene glycol 3350 and polysorbate 80 in medium-chain triglycerides, NF grade, micronized';
    const { text } = await readPdf(await renderCompoundingRecord(recordInput({ ingredients: [ingredient(1, { name })] })));

    expect(text).toContain('Polyethylene glycol 3350');
    expect(text).toContain('micronized');
  });

  it('when the same record is printed twice, then the bytes are the same', async () => {
    const first = await renderCompoundingRecord(recordInput());
    const second = await renderCompoundingRecord(recordInput());

    expect(first.equals(second)).toBe(true);
    expect((await readPdf(first)).info.CreationDate).toBe('D:20260302160000Z');
  });
});

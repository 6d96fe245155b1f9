import { describe, expect, it } from 'vitest';
import { ELLIPSIS } from '../../src/documents/fit-text.js';
import { COMPOUNDED_STATEMENT, TRANSFER_CAUTION } from '../../src/documents/label-rules.js';
import { LABEL_FONT, LABEL_SIZE, renderPrescriptionLabel } from '../../src/documents/prescription-label.js';
import { labelInput, scheduleThreeLabel } from './inputs.js';
import { piecesWith, readPdf, type PdfPage } from './pdf-text.js';

const LONG_SENTENCE = 'Inject 0.5 mL into the muscle every 7 days, rotating the site between the left and right thigh. ';
const MAX_DIRECTIONS = LABEL_FONT.directions.max;

/** The directions' pieces: those between the quantity line and the dose line. */
function directionSizes(page: PdfPage, word: string): number[] {
  return piecesWith(page, word).map((piece) => piece.size);
}

function withinLabel(page: PdfPage): void {
  for (const piece of page.pieces) {
    expect(piece.top, piece.text).toBeGreaterThanOrEqual(0);
    expect(piece.top + piece.size, piece.text).toBeLessThanOrEqual(LABEL_SIZE[1]);
    expect(piece.x + piece.width, piece.text).toBeLessThanOrEqual(LABEL_SIZE[0]);
  }
}

describe('the prescription label', () => {
  it('when a fill of a non-controlled preparation is labelled, then the label holds every required element', async () => {
    const { pages, text } = await readPdf(await renderPrescriptionLabel(labelInput()));

    expect(pages).toHaveLength(1);
    expect(pages[0]?.width).toBe(288);
    expect(pages[0]?.height).toBe(216);
    for (const element of [
      'Riverside Compounding Pharmacy',
      '200 Harbor Way, Suite 4, Columbus, OH 43215',
      'Tel (614) 555-0142',
      'Rx 1000123',
      'Fill 0',
      'Filled Mar 2, 2026',
      'Jane Q. Doe',
      'Prescriber: Dr. Alan Smith, MD',
      'Semaglutide injection 5 mg/2 mL (2.5 mg/mL)',
      'Qty: 2 mL',
      'Inject 0.25 mg (0.1 mL) under the skin once weekly.',
      'DOSE: 0.25 mg = 0.1 mL = 10 units (U-100 syringe)',
      'Discard after Apr 6, 2026',
      'Refrigerate at 2-8 °C (36-46 °F). Do not freeze.',
      COMPOUNDED_STATEMENT,
      'Pharmacist: MK',
      'Dispensed for Acme Health',
      'Lot L2603-01',
    ]) {
      expect(text).toContain(element);
    }
    expect(text).not.toContain('Caution: Federal law');
  });

  it('when a Schedule III preparation is labelled, then the label carries the transfer caution of 21 CFR 290.5 word for word', async () => {
    const { text } = await readPdf(await renderPrescriptionLabel(scheduleThreeLabel()));

    expect(TRANSFER_CAUTION).toBe(
      'Caution: Federal law prohibits the transfer of this drug to any person other than the patient for whom it was prescribed.',
    );
    expect(text).toContain(TRANSFER_CAUTION);
  });

  it.each([
    ['II', true],
    ['III', true],
    ['IV', true],
    ['V', false],
    [null, false],
  ] as const)('when the schedule is %s, then the caution is printed: %s', async (schedule, printed) => {
    const { text } = await readPdf(await renderPrescriptionLabel(scheduleThreeLabel({ controlled_schedule: schedule })));

    expect(text.includes(TRANSFER_CAUTION)).toBe(printed);
  });

  it('when the beyond-use date has a time and no syringe is dispensed, then the time is printed and the dose is in mL only', async () => {
    const { text } = await readPdf(await renderPrescriptionLabel(scheduleThreeLabel()));

    expect(text).toContain('Discard after May 31, 2026 5:00 PM');
    expect(text).toContain('DOSE: 100 mg = 0.5 mL');
    expect(text).not.toContain('units');
    expect(text).toContain('Testosterone cypionate in grapeseed oil 200 mg/mL');
  });

  it('when a fill has three containers, then each has its own label page, numbered, with its quantity', async () => {
    const containers = [
      { quantity: { value: '2', unit: 'mL' }, lot_number: 'L1' },
      { quantity: { value: '2', unit: 'mL' }, lot_number: 'L1' },
      { quantity: { value: '1', unit: 'mL' }, lot_number: 'L2' },
    ];
    const { pages } = await readPdf(await renderPrescriptionLabel(labelInput({ containers })));

    expect(pages).toHaveLength(3);
    pages.forEach((page, index) => {
      expect(page.text).toContain(`Qty: ${containers[index]?.quantity.value ?? ''} mL Container ${index + 1} of 3`);
      expect(page.text).toContain('Rx 1000123');
      expect(page.text).toContain(COMPOUNDED_STATEMENT);
    });
  });

  it('when a partner brand is printed, then the pharmacy name stays the largest text, above the brand, even for a long brand', async () => {
    const brand = 'Acme Health Telemedicine Weight Loss Platform of America Incorporated Worldwide';
    const [page] = (await readPdf(await renderPrescriptionLabel(labelInput({ partner_brand: brand })))).pages;
    if (!page) throw new Error('no page');
    const [name] = piecesWith(page, 'Riverside Compounding Pharmacy');
    const [brandPiece] = piecesWith(page, 'Dispensed for');

    expect(name?.size).toBe(LABEL_FONT.pharmacy.max);
    for (const piece of page.pieces) expect(piece.size).toBeLessThanOrEqual(name?.size ?? 0);
    expect(brandPiece?.size).toBeLessThan(name?.size ?? 0);
    expect(brandPiece?.top).toBeGreaterThan(name?.top ?? Infinity);
    withinLabel(page);
  });

  it('when directions are somewhat long, then they shrink below their largest size and are printed whole', async () => {
    const directions = LONG_SENTENCE.repeat(4).trim();
    const [page] = (await readPdf(await renderPrescriptionLabel(scheduleThreeLabel({ directions })))).pages;
    if (!page) throw new Error('no page');
    const sizes = directionSizes(page, 'rotating');

    expect(page.text).toContain(directions);
    expect(page.text).not.toContain(ELLIPSIS);
    expect(Math.max(...sizes)).toBeLessThan(MAX_DIRECTIONS);
    expect(Math.min(...sizes)).toBeGreaterThan(LABEL_FONT.directions.min);
  });

  it('when directions are too long for the label, then they are at the smallest size, cut with an ellipsis, and nothing leaves the label', async () => {
    const directions = LONG_SENTENCE.repeat(20).trim();
    const { pages } = await readPdf(await renderPrescriptionLabel(scheduleThreeLabel({ directions })));
    const [page] = pages;
    if (!page) throw new Error('no page');

    expect(pages).toHaveLength(1);
    expect(page.text).toContain(ELLIPSIS);
    expect(page.text).toContain('Inject 0.5 mL into the muscle every 7 days');
    expect(directionSizes(page, 'rotating').every((size) => size === LABEL_FONT.directions.min)).toBe(true);
    // What comes after the directions is all there, untouched.
    expect(page.text).toContain('DOSE: 100 mg = 0.5 mL');
    expect(page.text).toContain(TRANSFER_CAUTION);
    withinLabel(page);
  });

  it('when the patient name is longer than the label is wide, then it shrinks and is cut rather than run off the edge', async () => {
    const name = 'Maximiliana Alexandrina Konstantinopoulou-Vanderbilt-Montgomery de la Cruz y Villanueva';
    const [page] = (await readPdf(await renderPrescriptionLabel(labelInput({ patient_name: name })))).pages;
    if (!page) throw new Error('no page');

    expect(page.text).toContain('Maximiliana Alexandrina');
    withinLabel(page);
  });

  it('when the same fill is labelled twice, then the bytes are the same and the creation date is the input’s', async () => {
    const first = await renderPrescriptionLabel(labelInput());
    const second = await renderPrescriptionLabel(labelInput());
    const other = await renderPrescriptionLabel(labelInput({ generated_at: '2026-03-03T15:04:05.000Z' }));

    expect(first.equals(second)).toBe(true);
    expect(first.equals(other)).toBe(false);
    expect((await readPdf(first)).info.CreationDate).toBe('D:20260302150405Z');
  });

  it('when a fill has no container, then no label is made', async () => {
    await expect(renderPrescriptionLabel(labelInput({ containers: [] }))).rejects.toThrow(RangeError);
  });
});

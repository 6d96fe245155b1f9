/**
 * The prescription label of a fill (issue 40, item 7; docs/prescriptions.md#the-label): one page
 * per container, each a 4 × 3 in label.
 *
 * Why 4 × 3 in: it is the common stock of 4-inch direct-thermal pharmacy label printers, and with
 * every other element at its full size (a controlled preparation's two-line caution included) it
 * leaves about 55 points to the directions, five lines at 9 points; 4 × 2.5 in would leave one.
 *
 * The pharmacy's name is the largest text on the label: every other element is written at most at
 * its size, and a partner's brand line smaller still, under it, so that a brand never hides who
 * dispensed the drug. Text that is too long shrinks, then is cut with an ellipsis (fit-text.ts).
 */
import { writeFitted, type FitStyle } from './fit-text.js';
import { formatDate, formatTime } from './formats.js';
import {
  COMPOUNDED_STATEMENT,
  doseLine,
  needsTransferCaution,
  preparationLine,
  STORAGE_TEXT,
  TRANSFER_CAUTION,
} from './label-rules.js';
import type { DispensingPharmacy, LabelContainer, LabelInput } from './label.types.js';
import { FONT, openDocument } from './pdf-document.js';

/** 4 × 3 in, in points. */
export const LABEL_SIZE = [288, 216] as const;
/** What label printers leave unprinted at each edge: 1/8 in. */
const INSET = 9;
const WIDTH = LABEL_SIZE[0] - 2 * INSET;
const BOTTOM = LABEL_SIZE[1] - INSET;

/** The font sizes (points): the largest each element starts at, and the smallest it shrinks to. */
export const LABEL_FONT = {
  pharmacy: { max: 11, min: 7 },
  minimum: 5.5,
  directions: { max: 9, min: 6 },
} as const;

const line = (font: string, maxSize: number, minSize: number = LABEL_FONT.minimum): FitStyle => ({
  font,
  maxSize,
  minSize: Math.min(minSize, maxSize),
  singleLine: true,
});

const wrapped = (font: string, maxSize: number, minSize: number): FitStyle => ({
  font,
  maxSize,
  minSize: Math.min(minSize, maxSize),
  singleLine: false,
  lineGap: 0.5,
});

export const addressLine = (pharmacy: DispensingPharmacy): string =>
  [pharmacy.address_line_1, pharmacy.address_line_2, `${pharmacy.city}, ${pharmacy.state} ${pharmacy.postal_code}`]
    .filter((part) => part !== null && part !== '')
    .join(', ') + ` · Tel ${pharmacy.phone}`;

/** The beyond-use date as printed: `Discard after Apr 5, 2026 5:00 PM`. */
export const beyondUseLine = (beyondUse: LabelInput['beyond_use']): string =>
  `Discard after ${formatDate(beyondUse.date)}${beyondUse.time === null ? '' : ` ${formatTime(beyondUse.time)}`}`;

/** The label of each container, in order, one page each. */
export async function renderPrescriptionLabel(input: LabelInput): Promise<Buffer> {
  if (input.containers.length === 0) throw new RangeError('a label needs at least one container');
  const { doc, bytes } = await openDocument({
    size: LABEL_SIZE,
    margin: 0,
    meta: {
      title: `Rx ${input.rx_number} fill ${input.fill_number}`,
      author: input.pharmacy.name,
      generated_at: input.generated_at,
    },
  });
  input.containers.forEach((container, index) => {
    if (index > 0) doc.addPage({ size: [...LABEL_SIZE], margin: 0 });
    drawLabel(doc, input, container, `Container ${index + 1} of ${input.containers.length}`);
  });
  doc.end();
  return bytes;
}

function drawLabel(doc: PDFKit.PDFDocument, input: LabelInput, container: LabelContainer, ofCount: string): void {
  let y = INSET;
  const write = (text: string, style: FitStyle, height = 0): number => {
    const fitted = writeFitted(doc, text, { x: INSET, y, width: WIDTH, height }, style);
    y += fitted.used;
    return fitted.size;
  };

  // The dispensing pharmacy first and largest; everything else at most at its size.
  const top = write(input.pharmacy.name, line(FONT.bold, LABEL_FONT.pharmacy.max, LABEL_FONT.pharmacy.min));
  const most = (size: number): number => Math.min(size, top);
  write(addressLine(input.pharmacy), line(FONT.regular, most(7)));
  if (input.partner_brand !== null && input.partner_brand.trim() !== '') {
    write(`Dispensed for ${input.partner_brand}`, line(FONT.regular, Math.min(6.5, top - 1.5), LABEL_FONT.minimum - 0.5));
  }
  y += 1.5;
  doc
    .moveTo(INSET, y)
    .lineTo(INSET + WIDTH, y)
    .lineWidth(0.5)
    .stroke();
  y += 2.5;

  write(`Rx ${input.rx_number}   Fill ${input.fill_number}   Filled ${formatDate(input.fill_date)}`, line(FONT.bold, most(9)));
  write(input.patient_name, line(FONT.bold, most(10)));
  write(`Prescriber: ${input.prescriber_name}`, line(FONT.regular, most(7)));
  const preparation = wrapped(FONT.bold, most(9), LABEL_FONT.minimum);
  write(preparationLine(input.preparation), preparation, 2 * lineHeight(doc, FONT.bold, most(9)) + 1.5);
  const lot = container.lot_number === null ? '' : `   Lot ${container.lot_number}`;
  write(`Qty: ${container.quantity.value} ${container.quantity.unit}   ${ofCount}${lot}`, line(FONT.regular, most(7.5)));
  y += 1;

  // The bottom block is laid out from the bottom up; the directions take what is left between.
  const bottom = bottomBlock(doc, input, most);
  const dose = input.dose === null ? null : doseLine(input.dose);
  const doseHeight = dose === null ? 0 : lineHeight(doc, FONT.bold, most(8.5)) + 1;
  write(
    input.directions,
    wrapped(FONT.regular, most(LABEL_FONT.directions.max), LABEL_FONT.directions.min),
    bottom.top - y - doseHeight - 2,
  );
  if (dose !== null) {
    y = bottom.top - doseHeight - 1;
    write(dose, line(FONT.bold, most(8.5), 6));
  }
  bottom.draw();
}

function lineHeight(doc: PDFKit.PDFDocument, font: string, size: number): number {
  return doc.font(font).fontSize(size).currentLineHeight(true);
}

/** Beyond-use date, storage, the compounded statement with the pharmacist's initials, and the caution. */
function bottomBlock(
  doc: PDFKit.PDFDocument,
  input: LabelInput,
  most: (size: number) => number,
): { top: number; draw: () => void } {
  const caution = needsTransferCaution(input.controlled_schedule);
  const rows: { text: string; style: FitStyle; height: number }[] = [
    { text: beyondUseLine(input.beyond_use), style: line(FONT.bold, most(8.5), 6), height: 0 },
    { text: STORAGE_TEXT[input.storage], style: line(FONT.regular, most(7)), height: 0 },
    {
      text: `${COMPOUNDED_STATEMENT}   Pharmacist: ${input.pharmacist_initials}`,
      style: line(FONT.bold, most(7)),
      height: 0,
    },
  ];
  if (caution) {
    const style = wrapped(FONT.regular, most(6.5), LABEL_FONT.minimum);
    rows.push({ text: TRANSFER_CAUTION, style, height: 2 * lineHeight(doc, style.font, style.maxSize) + 1 });
  }
  const heights = rows.map((row) => (row.style.singleLine ? lineHeight(doc, row.style.font, row.style.maxSize) : row.height));
  const top = BOTTOM - heights.reduce((sum, height) => sum + height, 0);
  return {
    top,
    draw: () => {
      let y = top;
      rows.forEach((row, index) => {
        writeFitted(doc, row.text, { x: INSET, y, width: WIDTH, height: row.height }, row.style);
        y += heights[index] ?? 0;
      });
    },
  };
}

/**
 * The compounding record of a fill as PDF (issue 40, item 7): what was made, from which ingredient
 * lots, by whom and checked by whom, and why its beyond-use date is what it is. US Letter; as many
 * pages as the ingredients need, each numbered.
 */
import type { BudBasis, CompoundingRecordInput } from './compounding-record.types.js';
import { formatDate, formatInstant, formatTime } from './formats.js';
import { STORAGE_TEXT } from './label-rules.js';
import { FONT, openDocument, printable } from './pdf-document.js';
import { drawTable, footers, room, type Column } from './table.js';

const LETTER = [612, 792] as const;
const MARGIN = 54;
const WIDTH = LETTER[0] - 2 * MARGIN;

const PREPARATION_TEXT = { non_sterile: 'Non-sterile (USP <795>)', sterile: 'Sterile (USP <797>)' } as const;

/** The basis of the beyond-use date, in a sentence. */
export function budBasisText(basis: BudBasis): string {
  switch (basis.kind) {
    case 'standard':
      return `${basis.standard}, ${basis.row}: ${basis.days} days from the day of compounding`;
    case 'entry_days':
      return `The formulary entry's own ${basis.days} days from the day of compounding (shorter than the USP table)`;
    case 'ingredient_lot':
      return `Limited by the ingredient lot expiring first: ${basis.ingredient}, lot ${basis.lot_number}, expires ${formatDate(basis.expires_on)}`;
  }
}

const FIELD_COLUMNS: readonly Column[] = [
  { header: '', width: 130, bold: true },
  { header: '', width: WIDTH - 130 },
];

const INGREDIENT_COLUMNS: readonly Column[] = [
  { header: '#', width: 22 },
  { header: 'Ingredient', width: 150 },
  { header: 'Lot', width: 84 },
  { header: 'Lot expires', width: 72 },
  { header: 'Quantity', width: 66, align: 'right' },
  { header: 'Supplier', width: WIDTH - 22 - 150 - 84 - 72 - 66 },
];

/** The record's fields, label and value, in the order an inspector reads them. */
export function recordFields(input: CompoundingRecordInput): [string, string][] {
  const at = (instant: string): string => formatInstant(instant, input.time_zone);
  const bud = `${formatDate(input.beyond_use.date)}${input.beyond_use.time === null ? '' : ` ${formatTime(input.beyond_use.time)}`}`;
  return [
    ['Rx number', input.rx_number],
    ['Fill number', String(input.fill_number)],
    ['Patient', input.patient_name],
    ['Prescriber', input.prescriber_name],
    ['Formula', `${input.formula.name}, version ${input.formula.version}`],
    ['Preparation', PREPARATION_TEXT[input.formula.preparation]],
    ['Lot', input.lot_number],
    ['Quantity made', `${input.quantity.value} ${input.quantity.unit}`],
    ['Compounded by', `${input.compounded.name}, ${at(input.compounded.at)}`],
    ['Checked by', input.checked === null ? 'Not yet checked by a pharmacist' : `${input.checked.name}, ${at(input.checked.at)}`],
    ['Beyond-use date', bud],
    ['Basis of the date', budBasisText(input.beyond_use.basis)],
    ['Storage', STORAGE_TEXT[input.storage]],
  ];
}

export async function renderCompoundingRecord(input: CompoundingRecordInput): Promise<Buffer> {
  const { doc, bytes } = await openDocument({
    size: LETTER,
    margin: MARGIN,
    bufferPages: true,
    meta: {
      title: `Compounding record, Rx ${input.rx_number} fill ${input.fill_number}`,
      author: input.pharmacy.name,
      generated_at: input.generated_at,
    },
  });
  const pharmacy = input.pharmacy;
  doc.font(FONT.bold).fontSize(16).text('Compounding record', MARGIN, MARGIN, { width: WIDTH });
  doc.font(FONT.regular).fontSize(9);
  const address = [
    pharmacy.address_line_1,
    pharmacy.address_line_2,
    `${pharmacy.city}, ${pharmacy.state} ${pharmacy.postal_code}`,
    pharmacy.phone,
  ]
    .filter((part): part is string => part !== null && part !== '')
    .join(' · ');
  doc.text(printable(`${pharmacy.name} · ${address}`), { width: WIDTH });

  let y = drawTable(doc, FIELD_COLUMNS, recordFields(input), doc.y + 10, {
    headerless: true,
    style: { size: 9.5, padding: 2.5, rules: false },
  });
  y = room(doc, y + 16, 40);
  doc.font(FONT.bold).fontSize(11).text(`Ingredients (${input.ingredients.length})`, MARGIN, y, { width: WIDTH });
  const rows = input.ingredients.map((ingredient, index) => [
    String(index + 1),
    ingredient.name,
    ingredient.lot_number,
    formatDate(ingredient.expires_on),
    `${ingredient.quantity.value} ${ingredient.quantity.unit}`,
    ingredient.supplier ?? '',
  ]);
  drawTable(doc, INGREDIENT_COLUMNS, rows, doc.y + 4);
  footers(doc, `Compounding record · Rx ${input.rx_number} fill ${input.fill_number} · lot ${input.lot_number}`);
  doc.end();
  return bytes;
}

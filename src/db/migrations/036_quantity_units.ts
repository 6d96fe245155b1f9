import { sql, type Kysely } from 'kysely';

/**
 * Quantities with their unit, and lots found whatever their case (issue 39, items 9 and 11;
 * docs/compounding.md#quantities-and-their-unit, docs/compounding.md#recall):
 *
 * - An item's `unit_of_measure` was taken from its dose when the partner left it out (`250mg` gave
 *   `mg` to 150 mL of a 50 mg/mL suspension). Where the item's formulary entry knows its dispense
 *   unit, an item whose unit is absent, or is the unit its dose gave (what that derivation stored;
 *   a partner who sent the same unit cannot be told apart), takes the entry's unit. Items of an
 *   entry without a unit, and units a partner chose that the dose does not give, are left as they are.
 * - The recall's four lot indexes become indexes on `upper(lot_number)`, under the same names, so a
 *   recall of `gb-2611-07` finds `GB-2611-07` by the index.
 *
 * Frozen: the derivation below is the one the intake used until this migration, copied here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await correctUnits(db);
  for (const index of LOT_INDEXES) {
    await db.schema.dropIndex(index.name).execute();
    const create = db.schema.createIndex(index.name).on(index.table);
    await (index.byClinic ? create.column('clinic_id') : create)
      .expression(sql`upper(lot_number)`)
      .column('medication_request_id')
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  // The units corrected stay corrected: the dose's unit was the defect.
  for (const index of LOT_INDEXES) {
    await db.schema.dropIndex(index.name).execute();
    await db.schema
      .createIndex(index.name)
      .on(index.table)
      .columns([...(index.byClinic ? ['clinic_id'] : []), 'lot_number', 'medication_request_id'])
      .execute();
  }
}

const LOT_INDEXES = [
  { name: 'item_fills_lot_idx', table: 'medication_item_fills', byClinic: false },
  { name: 'item_fills_clinic_lot_idx', table: 'medication_item_fills', byClinic: true },
  { name: 'ingredient_lots_lot_idx', table: 'fill_ingredient_lots', byClinic: false },
  { name: 'ingredient_lots_clinic_lot_idx', table: 'fill_ingredient_lots', byClinic: true },
] as const;

/** One UPDATE per (dose, stored unit, entry unit) that needs it: a handful, whatever the number of items. */
async function correctUnits(db: Kysely<any>): Promise<void> {
  const combos: { dose: string; unit: string | null; dispense_unit: string }[] = await db
    .selectFrom('medication_items as i')
    .innerJoin('medications as e', 'e.id', 'i.medication_id')
    .where('e.dispense_unit', 'is not', null)
    .select(['i.dose as dose', 'i.unit_of_measure as unit', 'e.dispense_unit as dispense_unit'])
    .distinct()
    .execute();
  for (const { dose, unit, dispense_unit } of combos) {
    if (unit === dispense_unit || (unit !== null && unit !== unitOfDose(dose))) continue;
    await db
      .updateTable('medication_items')
      .set({ unit_of_measure: dispense_unit })
      .where('dose', '=', dose)
      .where('unit_of_measure', unit === null ? 'is' : '=', unit)
      .where('medication_id', 'in', db.selectFrom('medications').select('id').where('dispense_unit', '=', dispense_unit))
      .execute();
  }
}

/** The spellings the old derivation knew (lower case, dots removed) → the unit it stored. */
const UNITS: Readonly<Record<string, string>> = {
  ...spellings('mg', ['mg', 'milligram', 'milligrams', 'mgs']),
  ...spellings('mcg', ['mcg', 'µg', 'μg', 'ug', 'microgram', 'micrograms']),
  ...spellings('g', ['g', 'gm', 'gms', 'gram', 'grams']),
  kg: 'kg',
  ...spellings('mL', ['ml', 'milliliter', 'milliliters', 'millilitre', 'millilitres', 'cc']),
  ...spellings('L', ['l', 'liter', 'liters', 'litre', 'litres']),
  iu: 'IU',
  meq: 'mEq',
  ...spellings('units', ['u', 'unit', 'units']),
  ...spellings('tablets', ['tab', 'tabs', 'tablet', 'tablets']),
  ...spellings('capsules', ['cap', 'caps', 'capsule', 'capsules']),
  ...spellings('troches', ['troche', 'troches']),
  ...spellings('drops', ['drop', 'drops', 'gtt', 'gtts']),
  ...spellings('puffs', ['puff', 'puffs']),
  ...spellings('sprays', ['spray', 'sprays']),
  ...spellings('patches', ['patch', 'patches']),
  ...spellings('clicks', ['click', 'clicks']),
  ...spellings('pumps', ['pump', 'pumps']),
  ...spellings('suppositories', ['suppository', 'suppositories']),
  ...spellings('chews', ['chew', 'chews']),
  ...spellings('treats', ['treat', 'treats']),
  '%': '%',
};

function spellings(unit: string, words: string[]): Record<string, string> {
  return Object.fromEntries(words.map((word) => [word, unit]));
}

const DOSE =
  /^\s*(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:\s*(?:-|to)\s*(?:\d[\d,]*(?:\.\d+)?|\.\d+))?\s*(%|[a-zµμ.]+)(?:\s*(?:\/|per\s)\s*([a-z.]+))?/i;

/** The unit the old derivation gave a dose (`250mg` → `mg`, `2.5 mg/mL` → `mg/mL`), or null. */
export function unitOfDose(dose: string): string | null {
  const match = DOSE.exec(dose);
  const unit = canonical(match?.[1]);
  if (match === null || unit === null) return null;
  const per = canonical(match[2]);
  return per === null ? unit : `${unit}/${per}`;
}

function canonical(word: string | undefined): string | null {
  if (word === undefined) return null;
  const key = word.toLowerCase().replace(/\./g, '');
  return Object.hasOwn(UNITS, key) ? (UNITS[key] ?? null) : null;
}

import type { Kysely } from 'kysely';
import { newId } from '../../shared/ids.js';

/**
 * The formulary's safety fields (issue 39, items 6, 7, 9 and 10; docs/compounding.md):
 * - a sterile entry's USP <797> condition (`sterile_*`). Every sterile entry made before takes the
 *   most conservative Category 2 condition (aseptic, a non-sterile starting component, not tested:
 *   1 day at room temperature, 4 refrigerated, 45 frozen), marked `sterile_defaulted`, and its own
 *   `beyond_use_days` is cleared where it is longer than that condition allows (the standard's
 *   limit applies until the pharmacy records the real condition);
 * - `dispense_unit`, read off the entry's dosage form where it says it (a capsule, a tablet, a
 *   troche or suppository; mL for a solution, suspension, injectable, gel or drops; g for a cream
 *   or ointment), else left unset (`each`);
 * - `therapeutic_class` (unset for entries made before);
 * - `formula_version` and `formula_versions`: every entry with a formula gets its version 1, the
 *   formula as it is now.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['sterile_category', 'sterile_nonsterile_component', 'sterile_tested', 'sterile_defaulted'])
    await db.schema.alterTable('medications').addColumn(column, 'integer').execute();
  for (const column of ['sterile_preparation', 'dispense_unit', 'therapeutic_class'])
    await db.schema.alterTable('medications').addColumn(column, 'text').execute();
  await db.schema
    .alterTable('medications')
    .addColumn('formula_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('formula_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull())
    .addColumn('medication_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('formula', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addUniqueConstraint('formula_versions_entry_version_key', ['medication_id', 'version'])
    .execute();

  await db
    .updateTable('medications')
    .set({
      sterile_category: 2,
      sterile_preparation: 'aseptic',
      sterile_nonsterile_component: 1,
      sterile_tested: 0,
      sterile_defaulted: 1,
    })
    .where('preparation', '=', 'sterile')
    .execute();
  for (const [storage, days] of [
    ['room', 1],
    ['refrigerated', 4],
    ['frozen', 45],
  ] as const) {
    await db
      .updateTable('medications')
      .set({ beyond_use_days: null })
      .where('preparation', '=', 'sterile')
      .where('storage', '=', storage)
      .where('beyond_use_days', '>', days)
      .execute();
  }
  for (const [unit, words] of DISPENSE_UNIT_WORDS) {
    for (const word of words) {
      await db
        .updateTable('medications')
        .set({ dispense_unit: unit })
        .where('dispense_unit', 'is', null)
        .where((eb) => eb(eb.fn('lower', ['dosage_form']), 'like', `%${word}%`))
        .execute();
    }
  }
  await firstVersions(db);
}

/** Dosage-form words, in the order they are tried (a "capsule" before a "gel" its name may hold). */
const DISPENSE_UNIT_WORDS: readonly (readonly [string, readonly string[]])[] = [
  ['capsule', ['capsule']],
  ['tablet', ['tablet']],
  ['troche', ['troche', 'lozenge']],
  ['suppository', ['suppositor']],
  ['g', ['cream', 'ointment']],
  ['mL', ['solution', 'suspension', 'injectable', 'injection', 'gel', 'drops', 'syrup', 'elixir']],
];

const BATCH = 500;

/** Version 1 of every formula there is, with the fields the entry showed then (the formula's shape of this migration). */
async function firstVersions(db: Kysely<any>): Promise<void> {
  let after = '';
  for (;;) {
    const rows: Record<string, unknown>[] = await db
      .selectFrom('medications')
      .selectAll()
      .where('ingredients', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    const at = new Date().toISOString();
    await db
      .insertInto('formula_versions')
      .values(
        rows.map((row) => ({
          id: newId(),
          clinic_id: row.clinic_id,
          medication_id: row.id,
          version: 1,
          formula: JSON.stringify(snapshotOf(row)),
          created_at: at,
          created_by: null,
        })),
      )
      .execute();
    await db
      .updateTable('medications')
      .set({ formula_version: 1 })
      .where(
        'id',
        'in',
        rows.map((row) => row.id as string),
      )
      .execute();
    after = rows.at(-1)?.id as string;
  }
}

function snapshotOf(row: Record<string, unknown>): Record<string, unknown> {
  const json = (value: unknown) => (typeof value === 'string' ? (JSON.parse(value) as unknown) : null);
  return {
    ingredients: json(row.ingredients),
    preparation: row.preparation,
    bud_category: row.bud_category,
    storage: row.storage,
    controlled_schedule: row.controlled_schedule,
    beyond_use_days: row.beyond_use_days,
    restricted_states: json(row.restricted_states),
    sterile_condition:
      row.sterile_category === null || row.sterile_category === undefined
        ? null
        : {
            category: Number(row.sterile_category),
            preparation: row.sterile_preparation,
            nonsterile_component: Number(row.sterile_nonsterile_component) === 1,
            sterility_tested: Number(row.sterile_tested) === 1,
            defaulted: Number(row.sterile_defaulted) === 1,
          },
  };
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('formula_versions').execute();
  for (const column of [
    'sterile_category',
    'sterile_nonsterile_component',
    'sterile_tested',
    'sterile_defaulted',
    'sterile_preparation',
    'dispense_unit',
    'therapeutic_class',
    'formula_version',
  ])
    await db.schema.alterTable('medications').dropColumn(column).execute();
}

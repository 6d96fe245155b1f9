import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { NameText, Nullable, Page, PageQuery, Text, Timestamp, Uuid } from '../contracts/schemas.js';
import { StateCode } from '../reference/us-address.schemas.js';
import { BUD_CATEGORIES, PREPARATIONS, STORAGES } from './beyond-use.js';

/* A clinic's formulary as the operator manages it and the partner reads it (docs/compounding.md). */

const NullableText = Nullable(Type.String());

const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    { description },
  );

export const CONTROLLED_SCHEDULES = ['II', 'III', 'IV', 'V'] as const;
/** The most ingredients a formula lists, and the most states an entry restricts (every code there is). */
export const MAX_INGREDIENTS = 30;
export const MAX_RESTRICTED_STATES = 60;

const Preparation = literals(PREPARATIONS, '`sterile` or `non_sterile` (USP <797> or <795>).');
const BudCategory = literals(
  BUD_CATEGORIES,
  'USP <795>\u2019s category, which sets the longest beyond-use date (docs/compounding.md).',
);
const StorageSchema = literals(STORAGES, 'How the preparation is stored; `aqueous_non_preserved` must be `refrigerated`.');
const ControlledSchedule = Nullable(literals(CONTROLLED_SCHEDULES, 'DEA schedule.'), {
  description: 'The DEA schedule, `II` to `V`, or null for a preparation that is not controlled.',
});
const BeyondUseDays = Nullable(Type.Integer({ minimum: 1, maximum: 3650 }), {
  description:
    'Days from compounding to the beyond-use date: required for a sterile preparation; for a non-sterile one, an optional override no longer than its category allows (null: the category\u2019s).',
});

export const Ingredient = Type.Object(
  {
    name: NameText(200, { description: 'The ingredient, e.g. `semaglutide sodium`.' }),
    strength: Text(50, { description: 'Its amount per unit, e.g. `2.5`.' }),
    unit: Text(30, { description: 'e.g. `mg/mL`.' }),
    active: Type.Boolean({ description: 'True for an active ingredient; a formula has at least one.' }),
  },
  { additionalProperties: false },
);
export type IngredientView = Static<typeof Ingredient>;

/** The formula's fields as a body accepts them: all optional; a formula, once given, is whole (docs/compounding.md). */
const formulaInput = {
  ingredients: Type.Optional(Type.Array(Ingredient, { minItems: 1, maxItems: MAX_INGREDIENTS })),
  preparation: Type.Optional(Preparation),
  bud_category: Type.Optional(BudCategory),
  storage: Type.Optional(StorageSchema),
  controlled_schedule: Type.Optional(ControlledSchedule),
  beyond_use_days: Type.Optional(BeyondUseDays),
  restricted_states: Type.Optional(
    Type.Array(StateCode('A state where the pharmacy may not ship this preparation'), {
      maxItems: MAX_RESTRICTED_STATES,
      description: 'Two-letter US state codes where the pharmacy may not ship this preparation.',
    }),
  ),
};

/** A formula on its own: what `add-medication --formula` takes on the command line, checked as the API checks a body. */
export const FormulaBody = Type.Object(formulaInput, { additionalProperties: false });

const nullableOut = <T extends TSchema>(schema: T) => Nullable(schema);

export const Medication = Type.Object(
  {
    medication_id: Uuid(),
    clinic_id: Uuid(),
    name: Type.String(),
    strength: NullableText,
    dosage_form: NullableText,
    created_at: Timestamp,
    ingredients: Nullable(Type.Array(Ingredient), {
      description: 'The formula\u2019s ingredients; null for an entry with no formula.',
    }),
    preparation: nullableOut(Preparation),
    bud_category: nullableOut(BudCategory),
    storage: nullableOut(StorageSchema),
    controlled_schedule: ControlledSchedule,
    beyond_use_days: Nullable(Type.Integer()),
    restricted_states: Nullable(Type.Array(Type.String()), { description: 'Upper-case state codes; null with no formula.' }),
  },
  { additionalProperties: false },
);

const name = NameText(200, { description: 'The name orders use (matched ignoring case and extra spaces).' });
const strength = Text(100, { description: 'e.g. `2.5 mg/mL`.' });
const dosageForm = Text(100, { description: 'e.g. `injectable solution`.' });

export const AddMedicationBody = Type.Object(
  { name, strength: Type.Optional(strength), dosage_form: Type.Optional(dosageForm), ...formulaInput },
  { additionalProperties: false },
);
export type AddMedicationBody = Static<typeof AddMedicationBody>;

/** PATCH: only the fields sent change; the result is checked whole. */
export const UpdateMedicationBody = Type.Object(
  {
    name: Type.Optional(name),
    strength: Type.Optional(Nullable(strength)),
    dosage_form: Type.Optional(Nullable(dosageForm)),
    ...formulaInput,
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateMedicationBody = Static<typeof UpdateMedicationBody>;

export type MedicationView = Static<typeof Medication>;

/** `GET /api/external/medications`: a page of the formulary. */
export const FormularyQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type FormularyQuery = Static<typeof FormularyQuery>;

export const FormularyPage = Page(Medication);

import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { NameText, Nullable, Page, PageQuery, Text, Timestamp, Uuid } from '../contracts/schemas.js';
import { StateCode } from '../reference/us-address.schemas.js';
import { BUD_CATEGORIES, PREPARATIONS, STORAGES } from './beyond-use.js';
import { DISPENSE_UNITS, KNOWN_THERAPEUTIC_CLASSES, THERAPEUTIC_CLASS_PATTERN } from './dispense-unit.js';
import { STERILE_CATEGORIES, STERILIZATIONS } from './sterile-beyond-use.js';

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
    'Days from compounding to the beyond-use date: an optional override no longer than the standard allows (null: the standard\u2019s), USP <795>\u2019s category for a non-sterile preparation, USP <797>\u2019s `sterile_condition` for a sterile one (docs/compounding.md#beyond-use-dates).',
});

/** A sterile entry's USP <797> condition as a body sends it. */
const sterileConditionFields = {
  category: Type.Union(
    STERILE_CATEGORIES.map((c) => Type.Literal(c)),
    {
      description:
        'USP <797> category: 1 (segregated compounding area), 2 (cleanroom suite) or 3 (Category 2 plus the tests Category 3 requires).',
    },
  ),
  preparation: literals(
    STERILIZATIONS,
    '`aseptic` (filtered and filled aseptically) or `terminally_sterilized` (sterilized in its final container).',
  ),
  nonsterile_component: Type.Boolean({
    description: 'True when one or more starting components is non-sterile (a bulk powder).',
  }),
  sterility_tested: Type.Boolean({ description: 'True when the preparation is sterility tested (USP <71>) before release.' }),
};
const SterileConditionInput = Nullable(Type.Object(sterileConditionFields, { additionalProperties: false }), {
  description:
    'A sterile preparation\u2019s USP <797> condition, which sets its longest beyond-use date; only with `preparation: sterile`. Left out (or null), the most conservative Category 2 condition applies (aseptic, from a non-sterile component, not tested) and the read says `defaulted: true`.',
});
const SterileConditionView = Nullable(
  Type.Object(
    {
      ...sterileConditionFields,
      defaulted: Type.Boolean({
        description:
          'True when the entry gave no condition: the most conservative Category 2 row applies (1 day room, 4 refrigerated, 45 frozen).',
      }),
    },
    { additionalProperties: false },
  ),
  { description: 'The USP <797> condition of a sterile preparation; null for any other.' },
);

const DispenseUnit = literals(
  DISPENSE_UNITS,
  'What an order\u2019s `quantity` of this entry counts: the unit an order takes when it gives no `unit_of_measure`.',
);
const TherapeuticClass = Type.String({
  pattern: THERAPEUTIC_CLASS_PATTERN,
  maxLength: 64,
  description: `The therapeutic class duplicate therapy compares: two active orders of one class for one patient are held (docs/compounding.md#allergies-and-duplicate-therapy). Lower-case words joined by \`_\`, e.g. ${KNOWN_THERAPEUTIC_CLASSES.map((c) => `\`${c}\``).join(', ')}.`,
  'x-message': 'must be lower-case words joined by _ (e.g. glp1_receptor_agonist)',
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
  sterile_condition: Type.Optional(SterileConditionInput),
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
    sterile_condition: SterileConditionView,
    dispense_unit: Type.String({
      description: 'What an order\u2019s `quantity` of this entry counts (`each` when the entry sets none).',
    }),
    dispense_unit_defaulted: Type.Boolean({ description: 'True when the entry sets no unit and `each` is taken.' }),
    therapeutic_class: Nullable(Type.String({ description: 'The class duplicate therapy compares; null: by ingredient only.' })),
    formula_version: Nullable(
      Type.Integer({
        description: 'The formula\u2019s version: 1 for the first, one more at each change; null with no formula.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** One version of a formula, as it was. */
export const FormulaVersion = Type.Object(
  {
    version: Type.Integer(),
    formula: Type.Object(
      {},
      { additionalProperties: true, description: 'The formula\u2019s fields as the entry showed them then.' },
    ),
    created_at: Timestamp,
    created_by: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type FormulaVersionView = Static<typeof FormulaVersion> & { formula: Record<string, unknown> };

const name = NameText(200, { description: 'The name orders use (matched ignoring case and extra spaces).' });
const strength = Text(100, { description: 'e.g. `2.5 mg/mL`.' });
const dosageForm = Text(100, { description: 'e.g. `injectable solution`.' });

export const AddMedicationBody = Type.Object(
  {
    name,
    strength: Type.Optional(strength),
    dosage_form: Type.Optional(dosageForm),
    dispense_unit: Type.Optional(DispenseUnit),
    therapeutic_class: Type.Optional(TherapeuticClass),
    ...formulaInput,
  },
  { additionalProperties: false },
);
export type AddMedicationBody = Static<typeof AddMedicationBody>;

/** PATCH: only the fields sent change; the result is checked whole. */
export const UpdateMedicationBody = Type.Object(
  {
    name: Type.Optional(name),
    strength: Type.Optional(Nullable(strength)),
    dosage_form: Type.Optional(Nullable(dosageForm)),
    dispense_unit: Type.Optional(Nullable(DispenseUnit)),
    therapeutic_class: Type.Optional(Nullable(TherapeuticClass)),
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

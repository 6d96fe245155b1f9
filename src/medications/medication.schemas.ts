import { Type, type Static } from '@sinclair/typebox';
import { NameText, Nullable, Page, PageQuery, Text, Timestamp, Uuid } from '../contracts/schemas.js';

/* A clinic's formulary as the operator manages it and the partner reads it. */

const NullableText = Nullable(Type.String());

export const Medication = Type.Object(
  {
    medication_id: Uuid(),
    clinic_id: Uuid(),
    name: Type.String(),
    strength: NullableText,
    dosage_form: NullableText,
    created_at: Timestamp,
  },
  { additionalProperties: false },
);
export const AddMedicationBody = Type.Object(
  {
    name: NameText(200, { description: 'The name orders use (matched ignoring case and extra spaces).' }),
    strength: Type.Optional(Text(100, { description: 'e.g. `2.5 mg/mL`.' })),
    dosage_form: Type.Optional(Text(100, { description: 'e.g. `injectable solution`.' })),
  },
  { additionalProperties: false },
);

export type MedicationView = Static<typeof Medication>;

/** `GET /api/external/medications`: a page of the formulary. */
export const FormularyQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type FormularyQuery = Static<typeof FormularyQuery>;

export const FormularyPage = Page(Medication);

import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import { Medication } from '../medications/medication.schemas.js';
import { StatusHistoryEntryFields, StatusSchema } from '../orders/order.schemas.js';
import { HoldHistoryEntryFields } from '../holds/hold.schemas.js';
import { ItemFormulaView, OperatorItemFillView } from '../compounding/order-fill.schemas.js';
import { SignoffView } from '../compounding/signoff.schemas.js';
import { AllergyRecord } from '../patients/patient.schemas.js';
import { MedicationItemView, OrderView } from './order-view.schemas.js';

/* The order as the pharmacy reads it in full (GET /api/admin/medication-requests/{id}). */

const ShippingAddress = Type.Object(
  {
    address_line_1: Type.String(),
    address_line_2: Nullable(Type.String()),
    city: Type.String(),
    state: Type.String(),
    postal_code: Type.String(),
  },
  { additionalProperties: false },
);

/** An item as the pharmacy reads it: the partner's view, and the formulary entry it was matched to. */
const OperatorMedicationItem = Type.Object(
  {
    ...MedicationItemView.properties,
    formulary_entry: Nullable(Medication, {
      description:
        'The clinic\u2019s formulary entry the item was matched to when ordered, as it is now (its strength and its formula: ingredients, preparation, storage, schedule; the formula\u2019s fields are null for an entry without one); null when the item matched none or the entry was removed since.',
    }),
    medication_id: Nullable(Type.String({ description: 'The formulary entry the item matched when ordered.' })),
    formula: ItemFormulaView,
    fill: Nullable(OperatorItemFillView, {
      description:
        'The whole fill (docs/compounding.md#the-fill): lot, compounding time, beyond-use date, storage, ingredient lots, who recorded it; null before the fill.',
    }),
  },
  { additionalProperties: false },
);

/** The pharmacy whose name and address its labels print (PHARMACY_NAME and the PHARMACY_ADDRESS_* settings). */
const PharmacyIdentitySchema = Type.Object(
  {
    name: Type.String(),
    address_line_1: Type.String(),
    address_line_2: Nullable(Type.String()),
    city: Type.String(),
    state: Type.String(),
    postal_code: Type.String(),
    phone: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

/** What the pharmacy fills and ships: the partner's view of the order, plus who it goes to and its chain. */
export const OperatorOrderDetail = Type.Object(
  {
    ...OrderView.properties,
    medication_requests: Type.Array(OperatorMedicationItem),
    pharmacy: Nullable(PharmacyIdentitySchema, {
      description:
        'The pharmacy its label names (docs/configuration.md: PHARMACY_NAME and the address settings); null in production when they are not set.',
    }),
    status_history: Type.Array(
      Type.Object(
        {
          ...StatusHistoryEntryFields,
          actor_id: Nullable(
            Type.String({ description: 'The staff member who made the change (their id); null for anyone else.' }),
          ),
          actor_name: Nullable(
            Type.String({
              description:
                'Who made the change, by name: the staff member, "Operator token" (the shared ADMIN_TOKEN), or the command line’s operator; null for a partner, the sandbox, and changes recorded before names were.',
            }),
          ),
          reason: Nullable(
            Type.String({
              description: 'Why the pharmacy cancelled the order, when it said (never shown to the partner); null otherwise.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'Every status change, oldest first, each naming who made it (the partner’s view names no one).' },
    ),
    hold_history: Type.Array(
      Type.Object(
        {
          ...HoldHistoryEntryFields,
          actor_id: Nullable(
            Type.String({
              description:
                'Who: the staff member\u2019s id for the pharmacy\u2019s steps; the API key\u2019s, OAuth client\u2019s or portal user\u2019s id for a partner\u2019s answer.',
            }),
          ),
          actor_name: Nullable(
            Type.String({
              description:
                'Who, by name: the staff member, "Operator token", the command line\u2019s operator; "API key", "OAuth client" or the portal user\u2019s name for a partner\u2019s answer.',
            }),
          ),
          override_reason: Nullable(
            Type.String({
              description:
                'A clinical hold\u2019s override (`resolution: override`): the pharmacist\u2019s reason (the pharmacy\u2019s record, never shown to the partner); null otherwise.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'Every hold, the partner\u2019s answers, each resolution and resume, oldest first, naming who.' },
    ),
    signoffs: Type.Array(SignoffView, {
      maxItems: 2,
      description:
        'The pharmacist\u2019s sign-offs, oldest first: `prescription_review` (with what it checked) and `final_check`, each at most once, naming who and when.',
    }),
    clinic_name: Type.String(),
    patient: Type.Object(
      {
        patient_id: Uuid(),
        first_name: Type.String(),
        middle_name: Nullable(Type.String()),
        last_name: Type.String(),
        dob: Type.String({ format: 'date', description: 'Date of birth.' }),
        species: Type.String({ description: 'human, or the animal of a veterinary patient.' }),
        gender: Type.String({
          description: 'The patient\u2019s sex as the clinic registered it: male, female, other or unknown.',
        }),
        phone: Nullable(
          Type.String({ description: 'The patient\u2019s first phone contact (else SMS), as the clinic gave it.' }),
        ),
        shipping_address: Nullable(ShippingAddress),
        allergies: Nullable(Type.Array(AllergyRecord), {
          description: 'The patient\u2019s recorded allergies now; `[]` when none are recorded, null when never given (unknown).',
        }),
        no_known_allergies: Type.Boolean({ description: 'True when the prescriber recorded no known allergies.' }),
      },
      {
        additionalProperties: false,
        description:
          'Who the order ships to: the address a partner\u2019s hold answer gave the order when it has one, else the patient\u2019s current address. PHI: the read is audited.',
      },
    ),
    practitioner: Type.Object(
      {
        practitioner_id: Uuid(),
        first_name: Type.String(),
        last_name: Type.String(),
        npi: Type.String(),
        is_veterinarian: Type.Boolean(),
        phone: Nullable(Type.String()),
      },
      { additionalProperties: false, description: 'The prescriber, as the clinic registered them.' },
    ),
    refill_chain: Type.Array(
      Type.Object(
        {
          medication_request_id: Uuid(),
          status: StatusSchema,
          refill_of: Nullable(Type.String({ format: 'uuid' })),
          created_at: Timestamp,
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Every order of the refill chain, oldest first: the first order and each refill, this one included (one entry for an order never refilled).',
      },
    ),
  },
  { additionalProperties: false },
);
export type OperatorOrderDetailData = Static<typeof OperatorOrderDetail>;

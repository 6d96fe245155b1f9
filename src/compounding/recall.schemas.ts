import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp, Uuid } from '../contracts/schemas.js';
import { LotNumber } from './lot-number.js';
import { StatusSchema } from '../orders/order.schemas.js';

export const LotParams = Type.Object(
  { lot_number: LotNumber('The lot: a preparation\u2019s lot, or an ingredient lot a fill names.') },
  { additionalProperties: false },
);

export const RecallQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

/** One item of an order that received the lot. */
export const RecallItem = Type.Object(
  {
    medication_request_id: Uuid(),
    clinic_id: Uuid(),
    clinic_name: Type.String(),
    patient: Type.Object(
      { patient_id: Uuid(), first_name: Type.String(), last_name: Type.String() },
      { additionalProperties: false, description: 'Whom the order is for. PHI: the read is audited.' },
    ),
    status: StatusSchema,
    shipped_at: Nullable(Timestamp, { description: 'When the order shipped; null before.' }),
    created_at: Timestamp,
    medication_item_id: Uuid('The item of the order the lot went into.'),
    medication: Type.String({ description: 'The item\u2019s medication, as ordered.' }),
    quantity: Type.Number({ description: 'How much of it was dispensed, in `unit_of_measure`.' }),
    unit_of_measure: Nullable(Type.String(), {
      description: 'What `quantity` counts (`mL`, `capsule`); null only for an item stored without a unit.',
    }),
    match: Type.Union([Type.Literal('preparation'), Type.Literal('ingredient')], {
      description:
        '`preparation`: the item\u2019s own lot is the lot; `ingredient`: the lot is one of the ingredient lots its fill names.',
    }),
    ingredient: Nullable(Type.String(), {
      description: 'For an `ingredient` match, the ingredient whose lot it is (the first, if several); null otherwise.',
    }),
    fill_lot_number: Type.String({ description: 'The item\u2019s own lot (the lot itself for a `preparation` match).' }),
    compounded_at: Timestamp,
    beyond_use_date: Nullable(Type.String({ format: 'date' }), {
      description: 'YYYY-MM-DD; null for an entry without a formula.',
    }),
  },
  { additionalProperties: false },
);
export type RecallItemData = Static<typeof RecallItem>;

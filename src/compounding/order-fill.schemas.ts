import { Type, type Static } from '@sinclair/typebox';
import { NameText, Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import { MAX_INGREDIENTS } from '../medications/medication.schemas.js';
import { STORAGES } from '../medications/beyond-use.js';
import { LOT_NUMBER_MAX_LENGTH, LotNumber } from './lot-number.js';

/* The fill of an order's items (issue 30, item 3; docs/compounding.md#the-fill). */

/** Limits of a fill's body: an order holds at most 20 items (order.schemas.ts ORDER_LIMITS.maxItems). */
export const FILL_LIMITS = {
  lotNumber: LOT_NUMBER_MAX_LENGTH,
  ingredient: 200,
  maxItems: 20,
  maxIngredientLots: MAX_INGREDIENTS,
} as const;

const CalendarDate = (description: string) =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    description,
    'x-message': 'must be a date as YYYY-MM-DD',
    examples: ['2027-06-30'],
  });

const Storage = Type.Unsafe<(typeof STORAGES)[number]>({ type: 'string', enum: [...STORAGES] });

export const IngredientLotBody = Type.Object(
  {
    ingredient: NameText(FILL_LIMITS.ingredient, { description: 'The ingredient, as the formula names it.' }),
    lot_number: LotNumber('The supplier\u2019s lot of the ingredient.'),
    expires_on: CalendarDate('The ingredient lot\u2019s expiry (YYYY-MM-DD): not before the day of compounding.'),
  },
  { additionalProperties: false },
);

export const FillItemBody = Type.Object(
  {
    item_id: Uuid('The medication item (`medication_requests[].id` of the order).'),
    lot_number: LotNumber('The lot of the preparation.'),
    compounded_at: Type.String({
      format: 'date-time',
      maxLength: 40,
      description: 'When it was compounded: an ISO 8601 date-time, not in the future. Its UTC day counts the beyond-use days.',
    }),
    ingredient_lots: Type.Optional(
      Type.Array(IngredientLotBody, {
        maxItems: FILL_LIMITS.maxIngredientLots,
        description: 'The ingredient lots used: the beyond-use date is never later than the earliest `expires_on`.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FillItemInput = Static<typeof FillItemBody>;

export const FillBody = Type.Object(
  { items: Type.Array(FillItemBody, { minItems: 1, maxItems: FILL_LIMITS.maxItems }) },
  { $id: 'MedicationRequestFillRequest', additionalProperties: false },
);
export type FillInput = Static<typeof FillBody>;

/** What a partner reads of an item's fill. */
export const ItemFillView = Type.Object(
  {
    lot_number: Type.String(),
    beyond_use_date: Nullable(Type.String({ format: 'date' }), {
      description: 'YYYY-MM-DD: do not use after this day. Null for an entry of the formulary with no formula.',
    }),
    storage: Nullable(Storage, { description: '`room`, `refrigerated` or `frozen`; null with no formula.' }),
  },
  { $id: 'MedicationItemFill', additionalProperties: false },
);
export type ItemFillData = Static<typeof ItemFillView>;

/** The whole fill, as the pharmacy reads it. */
export const OperatorItemFillView = Type.Object(
  {
    lot_number: Type.String(),
    compounded_at: Timestamp,
    beyond_use_date: Nullable(Type.String({ format: 'date' })),
    storage: Nullable(Storage),
    generated: Type.Boolean({ description: 'True when a development server filled the item itself on shipping.' }),
    ingredient_lots: Type.Array(
      Type.Object(
        { ingredient: Type.String(), lot_number: Type.String(), expires_on: Type.String({ format: 'date' }) },
        { additionalProperties: false },
      ),
    ),
    filled_by_id: Nullable(
      Type.String({ description: 'The staff member who recorded it; null for the operator token or the sandbox.' }),
    ),
    filled_by_name: Nullable(Type.String()),
    filled_at: Timestamp,
  },
  { additionalProperties: false },
);
export type OperatorItemFillData = Static<typeof OperatorItemFillView>;

/** What the fill form needs of an item's formulary entry: its ingredients' names (null: no formula). */
export const ItemFormulaView = Nullable(
  Type.Object(
    {
      ingredients: Type.Array(Type.Object({ name: Type.String(), active: Type.Boolean() }, { additionalProperties: false })),
      bud_category: Type.String(),
      preparation: Type.String(),
      storage: Storage,
    },
    { additionalProperties: false },
  ),
  {
    description:
      'The formula of the item\u2019s formulary entry; null for an entry with none (filled as before, with no beyond-use date).',
  },
);

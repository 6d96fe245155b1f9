import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Page, PageQuery, Uuid } from '../contracts/schemas.js';
import { MedicationItemViewFields, OrderCoreViewFields, StatusSchema } from '../orders/order.schemas.js';
import { HoldViewFields } from '../holds/hold.schemas.js';
import { LotNumber } from '../compounding/lot-number.js';
import { ItemFillView } from '../compounding/order-fill.schemas.js';
import { ShipmentViewFields } from '../shipments/shipment.schemas.js';

/*
 * The order as partners read it (MedicationOrder): the core's fields, each item with its fill
 * (compounding), the hold and its conversation (holds), and the packages (shipments). Assembled
 * here only, as the read is (order-view.ts).
 */

/** One item of the order: the core's fields and the item's fill. */
export const MedicationItemView = Type.Object(
  {
    ...MedicationItemViewFields,
    fill: Nullable(ItemFillView, {
      description:
        'What the pharmacy dispensed: the lot, the beyond-use date and the storage (docs/compounding.md#the-fill); null until the item is filled.',
    }),
  },
  { additionalProperties: false },
);

export const OrderView = Type.Object(
  {
    // The core's fields in their order; `medication_requests` keeps its place with the fill added.
    ...OrderCoreViewFields,
    medication_requests: Type.Array(MedicationItemView),
    ...HoldViewFields,
    ...ShipmentViewFields,
  },
  { $id: 'MedicationOrder', additionalProperties: false },
);
export type OrderViewData = Static<typeof OrderView>;

/** `GET /api/external/medication-orders`: filters and page of the clinic's orders. */
export const ListOrdersQuery = Type.Object(
  {
    status: Type.Optional(StatusSchema),
    patient_id: Type.Optional(Uuid('Only this patient\u2019s orders.')),
    lot_number: Type.Optional(
      LotNumber(
        'Only the orders that received this lot: an item\u2019s own lot, or an ingredient lot its fill names (a recall), compared whatever its case.',
      ),
    ),
    ...PageQuery,
  },
  { additionalProperties: false },
);
export type ListOrdersQuery = Static<typeof ListOrdersQuery>;

export const OrderPage = Page(OrderView);

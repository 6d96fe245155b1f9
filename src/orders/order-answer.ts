import type { Static, TSchema } from '@sinclair/typebox';
import type { DbOrTrx } from '../db/database.js';
import type { OrderTable } from './order.tables.js';

/**
 * How a room's route answers with the order as partners read it (MedicationOrder). That read holds
 * every room's part of the order, so it is assembled above the rooms (fulfillment/order-view.ts
 * ORDER_ANSWER), and routes.ts hands it to the routes of holds, compounding and shipments: a room
 * answers with the whole order without importing the others or the layer above it (issue 38).
 */
export interface OrderAnswer<S extends TSchema = TSchema> {
  /** The answer's schema: its validation, serialization (the PHI allow-list) and OpenAPI. */
  readonly schema: S;
  /** The order, as it now is, as `schema` reads it. */
  read(db: DbOrTrx, order: OrderTable): Promise<Static<S>>;
}

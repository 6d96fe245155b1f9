import type { Write } from '../db/write.js';
import type { DbOrTrx, Trx } from '../db/database.js';
import type { CarrierTable, ShippingServiceStatePriceTable, ShippingServiceTable } from './shipping.tables.js';
import { reusableQuery } from '../db/reusable-query.js';

/*
 * Carriers and their services are the pharmacy's own catalogue, shared by every clinic: these
 * lookups are unscoped on purpose (no clinic owns a carrier). Every lookup uses a primary key:
 * carriers(id), shipping_services(carrier_id, id), shipping_service_state_prices(carrier_id, service_id, state_code).
 */

const allCarriers = reusableQuery((db) => db.selectFrom('carriers').selectAll().orderBy('name').orderBy('id'));

export async function listCarriers(db: DbOrTrx): Promise<CarrierTable[]> {
  return allCarriers(db);
}

export async function findCarrier(db: DbOrTrx, carrierId: string): Promise<CarrierTable | undefined> {
  return db.selectFrom('carriers').selectAll().where('id', '=', carrierId).executeTakeFirst();
}

/** A carrier's row, as a change's write (changes/run-change.ts). */
export function carrierInsert(handle: DbOrTrx, row: CarrierTable): Write {
  return handle.insertInto('carriers').values(row);
}

/** Services of the given carriers (all carriers when `carrierIds` is omitted), in display order. */
export async function listServices(db: DbOrTrx, carrierIds?: string[]): Promise<ShippingServiceTable[]> {
  if (carrierIds && carrierIds.length === 0) return [];
  let query = db.selectFrom('shipping_services').selectAll();
  if (carrierIds) query = query.where('carrier_id', 'in', carrierIds);
  return query.orderBy('carrier_id').orderBy('price_cents').orderBy('id').execute();
}

export async function findService(db: DbOrTrx, carrierId: string, serviceId: string): Promise<ShippingServiceTable | undefined> {
  return db
    .selectFrom('shipping_services')
    .selectAll()
    .where('carrier_id', '=', carrierId)
    .where('id', '=', serviceId)
    .executeTakeFirst();
}

/** State prices of the given carriers' services (all when omitted), in one query. */
export async function listStatePrices(db: DbOrTrx, carrierIds?: string[]): Promise<ShippingServiceStatePriceTable[]> {
  if (carrierIds && carrierIds.length === 0) return [];
  let query = db.selectFrom('shipping_service_state_prices').selectAll();
  if (carrierIds) query = query.where('carrier_id', 'in', carrierIds);
  return query.orderBy('carrier_id').orderBy('service_id').orderBy('state_code').execute();
}

/** The carrier's services that have their own price for one state: service id → cents. */
export async function findStatePricesForState(db: DbOrTrx, carrierId: string, stateCode: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('shipping_service_state_prices')
    .select(['service_id', 'price_cents'])
    .where('carrier_id', '=', carrierId)
    .where('state_code', '=', stateCode)
    .execute();
  return new Map(rows.map((r) => [r.service_id, r.price_cents]));
}

/** One service's state prices. */
export async function listServiceStatePrices(
  db: DbOrTrx,
  carrierId: string,
  serviceId: string,
): Promise<ShippingServiceStatePriceTable[]> {
  return db
    .selectFrom('shipping_service_state_prices')
    .selectAll()
    .where('carrier_id', '=', carrierId)
    .where('service_id', '=', serviceId)
    .orderBy('state_code')
    .execute();
}

/** What a shipping choice is priced from; carrier and service columns are null for an unknown id. */
export interface ShippingChoice {
  free_shipping: number;
  carrier_id: string | null;
  carrier_name: string | null;
  service_id: string | null;
  service_name: string | null;
  price_cents: number | null;
  state_price_cents: number | null;
}

export async function insertService(trx: Trx, row: ShippingServiceTable): Promise<void> {
  await trx.insertInto('shipping_services').values(row).execute();
}

export async function updateService(
  trx: Trx,
  carrierId: string,
  serviceId: string,
  changes: { name?: string; price_cents?: number },
): Promise<void> {
  if (changes.name === undefined && changes.price_cents === undefined) return;
  await trx
    .updateTable('shipping_services')
    .set(changes)
    .where('carrier_id', '=', carrierId)
    .where('id', '=', serviceId)
    .execute();
}

/** Replaces a service's whole set of state prices (inside the caller's transaction). */
export async function replaceStatePrices(
  trx: Trx,
  carrierId: string,
  serviceId: string,
  prices: Record<string, number>,
): Promise<void> {
  await trx
    .deleteFrom('shipping_service_state_prices')
    .where('carrier_id', '=', carrierId)
    .where('service_id', '=', serviceId)
    .execute();
  const rows = Object.entries(prices).map(([state_code, price_cents]) => ({
    carrier_id: carrierId,
    service_id: serviceId,
    state_code,
    price_cents,
  }));
  if (rows.length > 0) await trx.insertInto('shipping_service_state_prices').values(rows).execute();
}

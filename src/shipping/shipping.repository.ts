import { expressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Write, WriteTarget } from '../db/write.js';
import type { DbOrTrx, Trx } from '../db/database.js';
import type { PatientTable } from '../patients/patient.tables.js';
import type { CarrierTable, ShippingServiceStatePriceTable, ShippingServiceTable } from './shipping.tables.js';
import { reusableQuery } from '../db/reusable-query.js';
import { LICENCE_COLUMNS } from './licensed-states.repository.js';

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
export function carrierInsert(change: WriteTarget, row: CarrierTable): Write {
  return change.statements.insertInto('carriers').values(row);
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

/** The cold-chain eligible services of one carrier, or of every carrier when it has none, in display order (docs/shipping.md#cold-chain). */
export async function listColdChainServices(
  db: DbOrTrx,
  carrierId: string,
): Promise<Pick<ShippingServiceTable, 'carrier_id' | 'id' | 'name'>[]> {
  const eligible = await db
    .selectFrom('shipping_services')
    .select(['carrier_id', 'id', 'name'])
    .where('cold_chain_eligible', '=', 1)
    .orderBy('carrier_id')
    .orderBy('price_cents')
    .orderBy('id')
    .execute();
  const own = eligible.filter((s) => s.carrier_id === carrierId);
  return own.length > 0 ? own : eligible;
}

/** State prices of the given carriers' services (all when omitted), in one query. */
export async function listStatePrices(db: DbOrTrx, carrierIds?: string[]): Promise<ShippingServiceStatePriceTable[]> {
  if (carrierIds && carrierIds.length === 0) return [];
  let query = db.selectFrom('shipping_service_state_prices').selectAll();
  if (carrierIds) query = query.where('carrier_id', 'in', carrierIds);
  return query.orderBy('carrier_id').orderBy('service_id').orderBy('state_code').execute();
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

/**
 * One row per service of the carrier, priced for the state of the clinic's patient, with the clinic's
 * free shipping: GET carrier services asks the database once instead of five times. The carrier and
 * patient columns are null for an unknown carrier or another clinic's (or an unknown) patient; the
 * service columns are null on the single row of a carrier without services. No row: no such clinic.
 */
export interface CarrierServiceForPatient {
  free_shipping: number;
  carrier_id: string | null;
  patient_id: string | null;
  state: string | null;
  service_id: string | null;
  service_name: string | null;
  price_cents: number | null;
  state_price_cents: number | null;
  cold_chain_eligible: number | null;
  /** 1 when the patient's state is on the set licensed states (licensed-states.repository.ts LICENCE_COLUMNS). */
  licence_listed: number;
  /** 1 when the licensed states were ever set. */
  licence_list_set: number;
}

const carrierServicesForPatient = reusableQuery((db, clinicId: string, carrierId: string, patientId: string) =>
  db
    .selectFrom('clinics')
    .leftJoin('carriers', (join) => join.on('carriers.id', '=', carrierId))
    .leftJoin('patients', (join) => join.onRef('patients.clinic_id', '=', 'clinics.id').on('patients.id', '=', patientId))
    .leftJoin('shipping_services', (join) => join.onRef('shipping_services.carrier_id', '=', 'carriers.id'))
    .$call(joinOwnStatePrice)
    .select([
      'clinics.free_shipping',
      'carriers.id as carrier_id',
      'patients.id as patient_id',
      'patients.state',
      'shipping_services.id as service_id',
      'shipping_services.name as service_name',
      'shipping_services.price_cents',
      'own.price_cents as state_price_cents',
      'shipping_services.cold_chain_eligible',
    ])
    .select(LICENCE_COLUMNS)
    .where('clinics.id', '=', clinicId)
    // The display order of listServices for one carrier.
    .orderBy('shipping_services.price_cents')
    .orderBy('shipping_services.id'),
);

export async function findCarrierServicesForPatient(
  db: DbOrTrx,
  clinicId: string,
  carrierId: string,
  patientId: string,
): Promise<CarrierServiceForPatient[]> {
  return carrierServicesForPatient(db, clinicId, carrierId, patientId);
}

/** The join's condition: the state price of the service's own row for the patient's state. */
const ownPriceForPatientsState = (() => {
  const eb = expressionBuilder<
    { own: ShippingServiceStatePriceTable; shipping_services: ShippingServiceTable; patients: PatientTable },
    'own' | 'shipping_services' | 'patients'
  >();
  // Stored states are upper-case codes (the schemas admit only those): equality is enough.
  return eb.and([
    eb('own.carrier_id', '=', eb.ref('shipping_services.carrier_id')),
    eb('own.service_id', '=', eb.ref('shipping_services.id')),
    eb('own.state_code', '=', eb.ref('patients.state')),
  ]);
})();

/**
 * `query` with the service's own price for the patient's state joined as `own` (null columns when the
 * service has none there, or there is no patient): the one place the state-price join is written,
 * for the carrier services query above and an order's checks (orders/order.repository.ts). `query`
 * must have `shipping_services` and `patients` among its tables (the condition names them).
 */
export function joinOwnStatePrice<
  DB extends { shipping_service_state_prices: ShippingServiceStatePriceTable; shipping_services: unknown; patients: unknown },
  TB extends keyof DB,
  O,
>(query: SelectQueryBuilder<DB, TB, O>) {
  return query.leftJoin('shipping_service_state_prices as own', (join) => join.on(ownPriceForPatientsState));
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
  /** 0/1; null for an unknown service (read in the same query: docs/shipping.md#cold-chain). */
  cold_chain_eligible: number | null;
}

/** Marks these services (of any carrier) cold-chain eligible, as a change's write (the sandbox's seed). */
export function coldChainEligibleUpdate(change: WriteTarget, serviceIds: readonly string[]): Write {
  return change.statements
    .updateTable('shipping_services')
    .set({ cold_chain_eligible: 1 })
    .where('id', 'in', [...serviceIds]);
}

export async function insertService(trx: Trx, row: ShippingServiceTable): Promise<void> {
  await trx.insertInto('shipping_services').values(row).execute();
}

export async function updateService(
  trx: Trx,
  carrierId: string,
  serviceId: string,
  changes: { name?: string; price_cents?: number; cold_chain_eligible?: number },
): Promise<void> {
  if (changes.name === undefined && changes.price_cents === undefined && changes.cold_chain_eligible === undefined) return;
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

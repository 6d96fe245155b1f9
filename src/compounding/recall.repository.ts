import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { olderThan, type PagePosition } from '../db/keyset-page.js';
import type { OrderTable } from '../orders/order.tables.js';
import type { OrderStatus } from '../orders/order-status.js';

/*
 * A recall's reads (docs/compounding.md#recall): which orders received a lot, as the preparation's
 * own lot or as the lot of an ingredient it was made from. Each starts from the lot, by the indexes
 * migration 024 made for it (`(lot_number, medication_request_id)` for the pharmacy,
 * `(clinic_id, lot_number, medication_request_id)` for a partner), and reaches the orders by primary
 * key: the rows read are the lot's, whatever the size of the tables. A lot is compared whatever its case,
 * on `upper(lot_number)`, which the indexes hold (migration 036). The lot's rows come first in a
 * CROSS JOIN, which SQLite never reorders (PostgreSQL plans it as an inner join, from its
 * statistics): otherwise SQLite may prefer walking every order newest first to skip the sort.
 */

/**
 * A lot compared whatever its case (`gb-2611-07` finds `GB-2611-07`): `upper(lot_number)`, which is
 * what the four lot indexes hold since migration 036.
 */
const lotIs = (lotNumber: string) => sql<boolean>`upper(lot_number) = ${lotNumber.toUpperCase()}`;

/** One item that received the lot, with its order, clinic and patient (the pharmacy's recall). */
export interface RecallRow {
  medication_item_id: string;
  medication: string;
  quantity: number;
  unit_of_measure: string | null;
  /** `preparation` when the fill's own lot is the lot; `ingredient` when only an ingredient lot is. */
  matched: 'preparation' | 'ingredient';
  /** The ingredient whose lot it is (the first by name, if several); null for a preparation match. */
  ingredient: string | null;
  fill_lot_number: string;
  compounded_at: string;
  beyond_use_date: string | null;
  id: string;
  clinic_id: string;
  clinic_name: string;
  patient_id: string;
  patient_first_name: string;
  patient_last_name: string;
  /** The patient's contacts as stored (JSON `[{key, value}]`): the CSV's phone. */
  patient_contacts: string;
  /** Where the order shipped: its own address (a hold's answer), else the patient's. */
  address_line_1: string | null;
  address_line_2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  status: string;
  shipped_at: string | null;
  created_at: string;
}

/**
 * A page of the items that received `lotNumber`, across clinics, newest order first, then by item id
 * (keyset after `before`: the order's created_at and the item's id). One query; an item matched both
 * ways, or through two of its ingredients, is one row.
 */
export async function listLotItems(
  db: DbOrTrx,
  lotNumber: string,
  before: PagePosition | undefined,
  limit: number,
): Promise<RecallRow[]> {
  const rows = await lotItemsQuery(db, lotNumber, before, limit).execute();
  return rows.map((row) => ({ ...row, matched: row.matched === 'preparation' ? 'preparation' : 'ingredient' }));
}

/** listLotItems's query, unrun (test/compounding/recall-scale.test.ts reads its plan). */
export function lotItemsQuery(db: DbOrTrx, lotNumber: string, before: PagePosition | undefined, limit: number) {
  const matches = db
    .selectFrom('medication_item_fills')
    .select(['id as fill_id', sql<string>`'preparation'`.as('matched'), sql<string | null>`null`.as('ingredient')])
    .where(lotIs(lotNumber))
    .unionAll(
      db
        .selectFrom('fill_ingredient_lots')
        .select(['fill_id', sql<string>`'ingredient'`.as('matched'), 'ingredient'])
        .where(lotIs(lotNumber)),
    );
  // 'preparation' sorts after 'ingredient': max() keeps a preparation match, which names no
  // ingredient; otherwise min() names the first ingredient by name.
  const byFill = db
    .selectFrom(matches.as('x'))
    .select([
      'x.fill_id',
      sql<string>`max(x.matched)`.as('matched'),
      sql<string | null>`case when max(x.matched) = 'preparation' then null else min(x.ingredient) end`.as('ingredient'),
    ])
    .groupBy('x.fill_id');
  let q = db
    .selectFrom(byFill.as('lot'))
    .crossJoin('medication_item_fills as f')
    .crossJoin('medication_requests as m')
    .innerJoin('medication_items as i', 'i.id', 'f.medication_item_id')
    .innerJoin('clinics as c', 'c.id', 'm.clinic_id')
    .innerJoin('patients as p', 'p.id', 'm.patient_id')
    .whereRef('f.id', '=', 'lot.fill_id')
    .whereRef('m.id', '=', 'f.medication_request_id')
    .select([
      'f.medication_item_id',
      'i.medication',
      'i.quantity',
      'i.unit_of_measure',
      'lot.matched',
      'lot.ingredient',
      'f.lot_number as fill_lot_number',
      'f.compounded_at',
      'f.beyond_use_date',
      'm.id',
      'm.clinic_id',
      'c.name as clinic_name',
      'm.patient_id',
      'p.first_name as patient_first_name',
      'p.last_name as patient_last_name',
      'p.contacts as patient_contacts',
      // An order's own address is whole or absent (holds/answer-hold.service.ts): one test picks the set.
      sql<string | null>`case when m.ship_to_address_line1 is null then p.address_line_1 else m.ship_to_address_line1 end`.as(
        'address_line_1',
      ),
      sql<string | null>`case when m.ship_to_address_line1 is null then p.address_line_2 else m.ship_to_address_line2 end`.as(
        'address_line_2',
      ),
      sql<string | null>`case when m.ship_to_address_line1 is null then p.city else m.ship_to_city end`.as('city'),
      sql<string | null>`case when m.ship_to_address_line1 is null then p.state else m.ship_to_state end`.as('state'),
      sql<string | null>`case when m.ship_to_address_line1 is null then p.postal_code else m.ship_to_postal_code end`.as(
        'postal_code',
      ),
      'm.status',
      'm.shipped_at',
      'm.created_at',
    ]);
  if (before) q = q.where(olderThan({ createdAt: 'm.created_at', id: 'f.medication_item_id' }, before));
  return q.orderBy('m.created_at', 'desc').orderBy('f.medication_item_id', 'desc').limit(limit);
}

/** The partner's list filtered to a lot: the same filters as listOrdersOfClinic, and the lot. */
export interface ClinicLotFilter {
  status?: OrderStatus;
  patientId?: string;
  before?: PagePosition;
  limit: number;
}

/**
 * A page of the clinic's orders that received `lotNumber` (an item's lot or one of its ingredient
 * lots), newest first, as listOrdersOfClinic pages them: by the clinic's lot indexes, never the
 * clinic's other orders.
 */
export async function listLotOrdersOfClinic(
  db: DbOrTrx,
  clinicId: string,
  lotNumber: string,
  filter: ClinicLotFilter,
): Promise<OrderTable[]> {
  return lotOrdersOfClinicQuery(db, clinicId, lotNumber, filter).execute();
}

/** listLotOrdersOfClinic's query, unrun (test/compounding/recall-scale.test.ts reads its plan). */
export function lotOrdersOfClinicQuery(db: DbOrTrx, clinicId: string, lotNumber: string, filter: ClinicLotFilter) {
  const orderIds = db
    .selectFrom('medication_item_fills')
    .select('medication_request_id')
    .where('clinic_id', '=', clinicId)
    .where(lotIs(lotNumber))
    .union(
      db
        .selectFrom('fill_ingredient_lots')
        .select('medication_request_id')
        .where('clinic_id', '=', clinicId)
        .where(lotIs(lotNumber)),
    );
  let q = db
    .selectFrom(orderIds.as('lot'))
    .crossJoin('medication_requests as m')
    .whereRef('m.id', '=', 'lot.medication_request_id')
    .where('m.clinic_id', '=', clinicId)
    .selectAll('m');
  if (filter.status) q = q.where('m.status', '=', filter.status);
  if (filter.patientId) q = q.where('m.patient_id', '=', filter.patientId);
  if (filter.before) q = q.where(olderThan({ createdAt: 'm.created_at', id: 'm.id' }, filter.before));
  return q.orderBy('m.created_at', 'desc').orderBy('m.id', 'desc').limit(filter.limit);
}

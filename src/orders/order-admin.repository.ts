import type { DbOrTrx } from '../db/database.js';
import { olderThan, type PagePosition } from '../db/keyset-page.js';
import type { OrderTable } from './order.tables.js';
import type { OrderStatus } from './order-status.js';

/**
 * The pharmacy's own queries of orders: unscoped on purpose (the operator acts for every clinic),
 * each joining what the console shows with an order (its clinic's name, its patient's name and
 * address) so that a page of the queue is one query, whatever its length.
 */

/** An order with the names the queue shows next to it. */
export interface QueueRow extends OrderTable {
  clinic_name: string;
  patient_first_name: string;
  patient_middle_name: string | null;
  patient_last_name: string;
}

export interface OrderPageQuery {
  status?: OrderStatus;
  clinicId?: string;
  /** One order by id (the console's search): the page holds it or nothing. */
  orderId?: string;
  /** Rows strictly older than this position. */
  before?: PagePosition;
  limit: number;
}

/** A page of orders, newest first, keyset-paginated on (created_at, id), with clinic and patient names. */
export async function listOrdersPage(db: DbOrTrx, query: OrderPageQuery): Promise<QueueRow[]> {
  let q = db
    .selectFrom('medication_requests as m')
    .innerJoin('clinics as c', 'c.id', 'm.clinic_id')
    .innerJoin('patients as p', 'p.id', 'm.patient_id')
    .selectAll('m')
    .select([
      'c.name as clinic_name',
      'p.first_name as patient_first_name',
      'p.middle_name as patient_middle_name',
      'p.last_name as patient_last_name',
    ]);
  if (query.status) q = q.where('m.status', '=', query.status);
  if (query.clinicId) q = q.where('m.clinic_id', '=', query.clinicId);
  if (query.orderId) q = q.where('m.id', '=', query.orderId);
  if (query.before) q = q.where(olderThan({ createdAt: 'm.created_at', id: 'm.id' }, query.before));
  return q.orderBy('m.created_at', 'desc').orderBy('m.id', 'desc').limit(query.limit).execute();
}

/** Item counts of several orders in one query (the queue). */
export async function countItemsOfOrders(db: DbOrTrx, orderIds: string[]): Promise<Map<string, number>> {
  if (orderIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('medication_items')
    .innerJoin('prescriptions', 'prescriptions.id', 'medication_items.prescription_id')
    .select(['prescriptions.medication_request_id', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('prescriptions.medication_request_id', 'in', orderIds)
    .groupBy('prescriptions.medication_request_id')
    .execute();
  return new Map(rows.map((r) => [r.medication_request_id, Number(r.n)]));
}

/** Who an order ships to, and for which clinic: its patient's name and address, its clinic's name (one query). */
export interface ShippingParty {
  clinic_name: string;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  address_line_1: string | null;
  address_line_2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
}

export async function findShippingParty(db: DbOrTrx, order: OrderTable): Promise<ShippingParty | undefined> {
  return db
    .selectFrom('patients as p')
    .innerJoin('clinics as c', 'c.id', 'p.clinic_id')
    .select([
      'c.name as clinic_name',
      'p.first_name',
      'p.middle_name',
      'p.last_name',
      'p.address_line_1',
      'p.address_line_2',
      'p.city',
      'p.state',
      'p.postal_code',
    ])
    .where('p.id', '=', order.patient_id)
    .where('p.clinic_id', '=', order.clinic_id)
    .executeTakeFirst();
}

export type ChainRow = Pick<OrderTable, 'id' | 'status' | 'refill_of' | 'created_at'>;

/** Every order of a refill chain, its first included, oldest first (the chain index; one query). */
export async function listChain(db: DbOrTrx, chainOriginId: string): Promise<ChainRow[]> {
  return db
    .selectFrom('medication_requests')
    .select(['id', 'status', 'refill_of', 'created_at'])
    .where((eb) => eb.or([eb('id', '=', chainOriginId), eb('chain_origin_id', '=', chainOriginId)]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

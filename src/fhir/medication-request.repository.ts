import type { DbOrTrx } from '../db/database.js';
import type { OrderStatus } from '../orders/order-status.js';

/*
 * What the FHIR MedicationRequest is read from (medication-request.fhir.ts): each medication item of
 * the clinic's orders, with its order, and the ids of the Medications it refers to (its fill, its
 * formulary entry when the entry still exists). One query a page, one to count.
 */

export interface MedicationRequestFilter {
  /** Item ids (`_id`); undefined: any. */
  readonly ids?: readonly string[] | undefined;
  /** Patient ids (`patient`); undefined: any. */
  readonly patientIds?: readonly string[] | undefined;
  /** Order statuses (`status`, mapped back); undefined: any. */
  readonly orderStatuses?: readonly OrderStatus[] | undefined;
}

export interface MedicationRequestRow {
  id: string;
  medication: string;
  dose: string;
  unit_of_measure: string | null;
  quantity: number;
  refills: number;
  do_not_refill: number;
  direction: string;
  days_supply: number | null;
  order_id: string;
  patient_id: string;
  practitioner_id: string;
  status: string;
  /** The order's hold reason while it is on hold (the catalog's code). */
  hold_reason_code?: string | null;
  /** The first item of the item's refill chain (the item itself unless the order is a refill). */
  origin_item_id: string;
  created_at: string;
  /** The item's fill (its Medication's id), or null before the fill. */
  fill_id: string | null;
  /** The item's formulary entry when it is still in the clinic's formulary, or null. */
  entry_id: string | null;
}

/** True when some criterion has no alternative left: nothing can match, no query is needed. */
const matchesNothing = (filter: MedicationRequestFilter): boolean =>
  filter.ids?.length === 0 || filter.patientIds?.length === 0 || filter.orderStatuses?.length === 0;

function itemsOfClinic(db: DbOrTrx, clinicId: string, filter: MedicationRequestFilter) {
  let query = db
    .selectFrom('medication_items as i')
    .innerJoin('prescriptions as p', 'p.id', 'i.prescription_id')
    .innerJoin('medication_requests as o', 'o.id', 'p.medication_request_id')
    .where('o.clinic_id', '=', clinicId);
  if (filter.ids !== undefined) query = query.where('i.id', 'in', filter.ids);
  if (filter.patientIds !== undefined) query = query.where('o.patient_id', 'in', filter.patientIds);
  if (filter.orderStatuses !== undefined) query = query.where('o.status', 'in', filter.orderStatuses);
  return query;
}

/** Up to `limit` of the clinic's items that match, ids ascending, strictly after `afterId`. */
export async function pageMedicationRequests(
  db: DbOrTrx,
  clinicId: string,
  filter: MedicationRequestFilter,
  page: { afterId: string | null; limit: number },
): Promise<MedicationRequestRow[]> {
  if (matchesNothing(filter)) return [];
  let query = itemsOfClinic(db, clinicId, filter)
    .leftJoin('medication_item_fills as f', 'f.medication_item_id', 'i.id')
    .leftJoin('medications as m', (join) => join.onRef('m.id', '=', 'i.medication_id').onRef('m.clinic_id', '=', 'o.clinic_id'))
    .select([
      'i.id',
      'i.medication',
      'i.dose',
      'i.unit_of_measure',
      'i.quantity',
      'i.refills',
      'i.do_not_refill',
      'i.direction',
      'i.days_supply',
      'o.id as order_id',
      'o.patient_id',
      'o.practitioner_id',
      'o.status',
      'o.hold_reason_code',
      'i.origin_item_id',
      'o.created_at',
      'f.id as fill_id',
      'm.id as entry_id',
    ]);
  if (page.afterId !== null) query = query.where('i.id', '>', page.afterId);
  return query.orderBy('i.id').limit(page.limit).execute();
}

/** How many of the clinic's items match, in one query. */
export async function countMedicationRequests(db: DbOrTrx, clinicId: string, filter: MedicationRequestFilter): Promise<number> {
  if (matchesNothing(filter)) return 0;
  const row = await itemsOfClinic(db, clinicId, filter)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// Over 250 lines: the operator queue's one query, its filters and sorts, and the three reads that complete a page; a page's cost is read in one file.
import { sql } from 'kysely';
import type { DbOrTrx, DialectName } from '../db/database.js';
import { containsText } from '../db/dialect.js';
import { newerThan, olderThan, type PagePosition } from '../db/keyset-page.js';
import type { MedicationTable } from '../medications/medication.tables.js';
import type { MedicationItemTable, OrderTable } from './order.tables.js';
import type { OrderStatus } from './order-status.js';

/**
 * The pharmacy's own queries of orders: unscoped on purpose (the operator acts for every clinic),
 * each joining what the console shows with an order (its clinic's name, its patient's name and
 * address) so that a page of the queue is one query, whatever its length.
 */

/** An order with what the queue shows next to it: its clinic, its patient, its prescriber. */
export interface QueueRow extends OrderTable {
  clinic_name: string;
  patient_first_name: string;
  patient_middle_name: string | null;
  patient_last_name: string;
  patient_dob: string;
  practitioner_first_name: string;
  practitioner_last_name: string;
  practitioner_npi: string;
  practitioner_is_veterinarian: number;
}

/** The queue's filters (every one optional; together they all apply). */
export interface QueueFilters {
  status?: OrderStatus;
  clinicId?: string;
  carrierId?: string;
  /** One order by id (the exact filter of `medication_request_id`). */
  orderId?: string;
  /** Created at or after this instant (ISO, as stored). */
  createdFrom?: string;
  /** Created before this instant (ISO, as stored). */
  createdBefore?: string;
  /**
   * Words of a search: each must appear (case-insensitively for A-Z) in the patient's name, the
   * prescriber's name, the order id or the tracking number.
   */
  words?: string[];
}

/** The statuses of an order the pharmacy still has to work: the waiting part of the queue (a held order is still to work). */
export const WAITING_STATUSES: readonly OrderStatus[] = ['pending', 'processing', 'on_hold'];

/** Which part of the queue, in which order, and from where. */
export type QueueSlice =
  | { part: 'waiting'; after?: PagePosition }
  | { part: 'finished'; before?: PagePosition }
  | { part: 'all'; before?: PagePosition };

/**
 * A page of the queue, with each order's clinic, patient and prescriber, in one query: the waiting
 * part (pending, processing, on_hold) oldest first, the finished part or the whole newest first, each
 * keyset-paginated on (created_at, id). A search scans the rows in that order until the page is full.
 */
export async function listQueuePage(
  db: DbOrTrx,
  dialect: DialectName,
  filters: QueueFilters,
  slice: QueueSlice,
  limit: number,
): Promise<QueueRow[]> {
  let q = db
    .selectFrom('medication_requests as m')
    .innerJoin('clinics as c', 'c.id', 'm.clinic_id')
    .innerJoin('patients as p', 'p.id', 'm.patient_id')
    .innerJoin('practitioners as r', 'r.id', 'm.practitioner_id')
    .selectAll('m')
    .select([
      'c.name as clinic_name',
      'p.first_name as patient_first_name',
      'p.middle_name as patient_middle_name',
      'p.last_name as patient_last_name',
      'p.dob as patient_dob',
      'r.first_name as practitioner_first_name',
      'r.last_name as practitioner_last_name',
      'r.npi as practitioner_npi',
      'r.is_veterinarian as practitioner_is_veterinarian',
    ]);
  if (filters.status) q = q.where('m.status', '=', filters.status);
  if (filters.clinicId) q = q.where('m.clinic_id', '=', filters.clinicId);
  if (filters.carrierId) q = q.where('m.carrier_id', '=', filters.carrierId);
  if (filters.orderId) q = q.where('m.id', '=', filters.orderId);
  if (filters.createdFrom) q = q.where('m.created_at', '>=', filters.createdFrom);
  if (filters.createdBefore) q = q.where('m.created_at', '<', filters.createdBefore);
  for (const word of filters.words ?? []) {
    const holds = (column: string) => containsText(dialect, sql<string | null>`${sql.ref(column)}`, word);
    q = q.where((eb) =>
      eb.or(
        ['p.first_name', 'p.middle_name', 'p.last_name', 'r.first_name', 'r.last_name', 'm.id', 'm.tracking_number'].map(holds),
      ),
    );
  }
  const keys = { createdAt: 'm.created_at', id: 'm.id' };
  switch (slice.part) {
    case 'waiting':
      q = q.where('m.status', 'in', WAITING_STATUSES);
      if (slice.after) q = q.where(newerThan(keys, slice.after));
      return q.orderBy('m.created_at', 'asc').orderBy('m.id', 'asc').limit(limit).execute();
    case 'finished':
      q = q.where('m.status', 'not in', WAITING_STATUSES);
      if (slice.before) q = q.where(olderThan(keys, slice.before));
      break;
    case 'all':
      if (slice.before) q = q.where(olderThan(keys, slice.before));
      break;
  }
  return q.orderBy('m.created_at', 'desc').orderBy('m.id', 'desc').limit(limit).execute();
}

/** What the queue shows of an order's medications. */
export type QueueItemRow = Pick<MedicationItemTable, 'medication' | 'dose' | 'unit_of_measure' | 'quantity'> & {
  medication_request_id: string;
};

/** The medications of several orders in one query (the queue), each order's in their position. */
export async function listItemsOfQueue(db: DbOrTrx, orderIds: string[]): Promise<QueueItemRow[]> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('medication_items as i')
    .innerJoin('prescriptions as s', 's.id', 'i.prescription_id')
    .select(['s.medication_request_id', 'i.medication', 'i.dose', 'i.unit_of_measure', 'i.quantity'])
    .where('s.medication_request_id', 'in', orderIds)
    .orderBy('s.medication_request_id')
    .orderBy('i.position')
    .execute();
}

/**
 * Whom an order is for and who prescribed it, for which clinic, in one query: the patient's name,
 * date of birth, species, contacts (JSON) and address, the prescriber's name, NPI and veterinarian
 * flag, the clinic's name.
 */
export interface PatientAndPrescriber {
  clinic_name: string;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  dob: string;
  species: string;
  gender: string;
  contacts: string;
  address_line_1: string | null;
  address_line_2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  allergies?: string | null;
  no_known_allergies?: number | null;
  practitioner_first_name: string;
  practitioner_last_name: string;
  practitioner_npi: string;
  practitioner_is_veterinarian: number;
  practitioner_phone: string | null;
}

/** An item's formulary entry: null when it matched none, or the entry was removed since. */
export interface ItemEntryRow {
  position: number;
  entry: MedicationTable | null;
}

/**
 * The formulary entry of each item of an order, in the items' order: one query (the items, their
 * prescription, and the entries they name, left-joined by id in the order's clinic).
 */
export async function listItemEntries(db: DbOrTrx, order: Pick<OrderTable, 'id' | 'clinic_id'>): Promise<ItemEntryRow[]> {
  const rows = await db
    .selectFrom('medication_items as i')
    .innerJoin('prescriptions as s', 's.id', 'i.prescription_id')
    .leftJoin('medications as e', (join) => join.onRef('e.id', '=', 'i.medication_id').on('e.clinic_id', '=', order.clinic_id))
    .select([
      'i.position',
      'e.id',
      'e.clinic_id',
      'e.name',
      'e.name_key',
      'e.strength',
      'e.dosage_form',
      'e.created_at',
      'e.ingredients',
      'e.preparation',
      'e.bud_category',
      'e.storage',
      'e.controlled_schedule',
      'e.beyond_use_days',
      'e.restricted_states',
      'e.sterile_category',
      'e.sterile_preparation',
      'e.sterile_nonsterile_component',
      'e.sterile_tested',
      'e.sterile_defaulted',
      'e.dispense_unit',
      'e.therapeutic_class',
      'e.formula_version',
    ])
    .where('s.medication_request_id', '=', order.id)
    .orderBy('i.position')
    .execute();
  return rows.map(({ position, id, clinic_id, name, name_key, created_at, ...rest }) => ({
    position,
    entry:
      id === null || clinic_id === null || name === null || name_key === null || created_at === null
        ? null
        : { id, clinic_id, name, name_key, created_at, ...rest, formula_version: rest.formula_version ?? 0 },
  }));
}

export async function findPatientAndPrescriber(db: DbOrTrx, order: OrderTable): Promise<PatientAndPrescriber | undefined> {
  return db
    .selectFrom('patients as p')
    .innerJoin('clinics as c', 'c.id', 'p.clinic_id')
    .innerJoin('practitioners as r', (join) =>
      join.on('r.id', '=', order.practitioner_id).onRef('r.clinic_id', '=', 'p.clinic_id'),
    )
    .select([
      'c.name as clinic_name',
      'p.first_name',
      'p.middle_name',
      'p.last_name',
      'p.dob',
      'p.species',
      'p.gender',
      'p.contacts',
      'p.address_line_1',
      'p.address_line_2',
      'p.city',
      'p.state',
      'p.postal_code',
      'p.allergies',
      'p.no_known_allergies',
      'r.first_name as practitioner_first_name',
      'r.last_name as practitioner_last_name',
      'r.npi as practitioner_npi',
      'r.is_veterinarian as practitioner_is_veterinarian',
      'r.phone as practitioner_phone',
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

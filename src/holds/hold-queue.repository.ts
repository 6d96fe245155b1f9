import type { DbOrTrx } from '../db/database.js';
import { newerThan, type PagePosition } from '../db/keyset-page.js';
import type { WaitingOn } from './hold-reasons.js';

/**
 * The Holds view's read (GET /api/admin/holds): unscoped on purpose, as the queue's (the pharmacy
 * works every clinic's holds).
 */

/** An order on hold, with its clinic's name and its patient's name. */
export interface HeldOrderRow {
  id: string;
  clinic_id: string;
  clinic_name: string;
  patient_id: string;
  patient_first_name: string;
  patient_last_name: string;
  held_from?: string | null;
  hold_reason_code?: string | null;
  hold_message?: string | null;
  hold_waiting_on?: string | null;
  hold_since: string;
  hold_answered_at?: string | null;
  created_at: string;
}

export interface HoldFilters {
  waitingOn?: WaitingOn;
  reasonCode?: string;
}

/**
 * A page of the orders on hold, oldest hold first (hold_since, then id; keyset after `after`), each
 * with its clinic's and patient's names: one query, by medication_requests_hold_since_idx.
 */
export async function listHeldOrders(
  db: DbOrTrx,
  filters: HoldFilters,
  after: PagePosition | undefined,
  limit: number,
): Promise<HeldOrderRow[]> {
  let q = db
    .selectFrom('medication_requests as m')
    .innerJoin('clinics as c', 'c.id', 'm.clinic_id')
    .innerJoin('patients as p', 'p.id', 'm.patient_id')
    .select([
      'm.id',
      'm.clinic_id',
      'c.name as clinic_name',
      'm.patient_id',
      'p.first_name as patient_first_name',
      'p.last_name as patient_last_name',
      'm.held_from',
      'm.hold_reason_code',
      'm.hold_message',
      'm.hold_waiting_on',
      'm.hold_since',
      'm.hold_answered_at',
      'm.created_at',
    ])
    .where('m.status', '=', 'on_hold')
    .where('m.hold_since', 'is not', null)
    .$narrowType<{ hold_since: string }>();
  if (filters.waitingOn) q = q.where('m.hold_waiting_on', '=', filters.waitingOn);
  if (filters.reasonCode) q = q.where('m.hold_reason_code', '=', filters.reasonCode);
  if (after) q = q.where(newerThan({ createdAt: 'm.hold_since', id: 'm.id' }, after));
  return q.orderBy('m.hold_since', 'asc').orderBy('m.id', 'asc').limit(limit).execute();
}

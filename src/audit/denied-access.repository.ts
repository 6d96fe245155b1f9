import type { DbOrTrx } from '../db/database.js';
import type { AuditResourceType } from './audit-vocabulary.js';

/**
 * The table of each kind of clinic record a partner can name by id (a webhook delivery: by the
 * partner portal; the partner API's log filters by endpoint and answers another clinic's endpoint
 * with an empty page, not a 404); a staff account has no clinic.
 */
const TABLE_OF = {
  patient: 'patients',
  practitioner: 'practitioners',
  medication_request: 'medication_requests',
  refill_request: 'refill_requests',
  webhook_endpoint: 'webhook_endpoints',
  webhook_delivery: 'webhook_deliveries',
} as const satisfies Partial<Record<AuditResourceType, string>>;

export type ClinicRecordType = keyof typeof TABLE_OF;

/**
 * UNSCOPED on purpose: the clinic a record belongs to, whichever clinic asks, or undefined when no
 * such record exists. Only the denied-access audit calls it, after the scoped query found nothing
 * (one primary-key lookup on the 404 path); its answer never reaches the caller.
 */
export async function findClinicOfRecordUnscoped(db: DbOrTrx, type: ClinicRecordType, id: string): Promise<string | undefined> {
  const row = await db.selectFrom(TABLE_OF[type]).select('clinic_id').where('id', '=', id).executeTakeFirst();
  return row?.clinic_id;
}

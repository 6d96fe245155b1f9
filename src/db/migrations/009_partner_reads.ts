import type { Kysely } from 'kysely';

/**
 * Indexes of the partner's self-service reads (issue 11, item 3): each list is a range scan of one
 * index, newest first on (created_at, id), whatever the filter: the formulary; a clinic's orders by
 * status and by patient; a clinic's delivery log overall and by endpoint, status and event type.
 */
const INDEXES: [name: string, table: string, columns: string[]][] = [
  ['medications_clinic_created_idx', 'medications', ['clinic_id', 'created_at', 'id']],
  ['medication_requests_clinic_status_created_idx', 'medication_requests', ['clinic_id', 'status', 'created_at', 'id']],
  ['medication_requests_clinic_patient_created_idx', 'medication_requests', ['clinic_id', 'patient_id', 'created_at', 'id']],
  ['webhook_deliveries_clinic_created_id_idx', 'webhook_deliveries', ['clinic_id', 'created_at', 'id']],
  ['webhook_deliveries_clinic_endpoint_created_idx', 'webhook_deliveries', ['clinic_id', 'endpoint_id', 'created_at', 'id']],
  ['webhook_deliveries_clinic_status_created_idx', 'webhook_deliveries', ['clinic_id', 'status', 'created_at', 'id']],
  ['webhook_deliveries_clinic_type_created_idx', 'webhook_deliveries', ['clinic_id', 'event_type', 'created_at', 'id']],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, table, columns] of INDEXES) {
    await db.schema.createIndex(name).on(table).columns(columns).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
}

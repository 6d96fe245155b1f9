import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { WebhookEndpointTable } from './webhook.tables.js';

/**
 * What the engine reads and writes of endpoint rows besides its leases (queue.repository.ts): the
 * active endpoints an event fans out to, and the endpoint's health as attempts move it (a failure
 * streak, its end, the disabling after DISABLE_AFTER_MS or a 410). Endpoint management disables an
 * endpoint through `disableEndpoint` too. Unscoped on purpose: the worker serves every clinic.
 */

/** Worker: the active endpoints of the given clinics, for fan-out (unscoped on purpose). */
export async function activeEndpointsOfClinics(db: DbOrTrx, clinicIds: string[]): Promise<WebhookEndpointTable[]> {
  if (clinicIds.length === 0) return [];
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('clinic_id', 'in', clinicIds)
    .where('deleted_at', 'is', null)
    .where('status', '=', 'active')
    .execute();
}

/** A successful attempt ends the endpoint's failure streak. */
export async function markEndpointHealthy(db: DbOrTrx, endpointId: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('id', '=', endpointId)
    .where('failing_since', 'is not', null)
    .execute();
}

/** A failed attempt starts the failure streak if none is running; returns the streak's start. */
export async function markEndpointFailing(db: DbOrTrx, endpointId: string, failedAt: string): Promise<string | null> {
  await db
    .updateTable('webhook_endpoints')
    .set({ failing_since: sql<string>`coalesce(failing_since, ${failedAt})` })
    .where('id', '=', endpointId)
    .execute();
  const row = await db.selectFrom('webhook_endpoints').select('failing_since').where('id', '=', endpointId).executeTakeFirst();
  return row?.failing_since ?? null;
}

/** Disables an active endpoint; false when it was not active (already disabled or deleted). */
export async function disableEndpoint(db: DbOrTrx, endpointId: string, now: string, reason: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_at: now, disabled_reason: reason })
    .where('id', '=', endpointId)
    .where('status', '=', 'active')
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

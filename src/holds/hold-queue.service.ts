import type { AppContext, AuditedReadContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { decodeCursor, encodeCursor, type Page } from '../db/keyset-page.js';
import { businessHoursBetween } from '../shared/business-hours.js';
import { holdReasonOf, type WaitingOn } from './hold-reasons.js';
import type { HoldQueueItemData, HoldQueueQueryData } from './hold-queue.schemas.js';
import { listHeldOrders, type HeldOrderRow } from './hold-queue.repository.js';

/**
 * GET /api/admin/holds: every order on hold, oldest hold first, filtered by whom it waits on and by
 * reason, keyset-paginated on (hold_since, id). Each row's age is the working hours since its hold
 * began, as the queue's age (shared/business-hours.ts). Every order listed, and every patient whose
 * name is shown, is audited as read by the operator, as the queue's are.
 */
export async function listHolds(
  ctx: AuditedReadContext & Pick<AppContext, 'clock' | 'config'>,
  query: HoldQueueQueryData,
  audit: AuditContext,
): Promise<Page<HoldQueueItemData>> {
  const limit = query.limit ?? 50;
  const rows = await listHeldOrders(
    ctx.db,
    {
      ...(query.waiting_on ? { waitingOn: query.waiting_on } : {}),
      ...(query.reason_code ? { reasonCode: query.reason_code } : {}),
    },
    query.cursor ? decodeCursor(query.cursor) : undefined,
    limit + 1,
  );
  const listed = rows.slice(0, limit);
  const now = ctx.clock();
  const items = listed.map((row) =>
    toHoldQueueItem(row, businessHoursBetween(new Date(row.hold_since), now, ctx.config.pharmacyTimeZone)),
  );
  const last = listed[listed.length - 1];
  await ctx.audit.recordReads(audit, [
    ...items.map((item): AuditedResource => ({
      type: 'medication_request',
      id: item.medication_request_id,
      clinicId: item.clinic_id,
    })),
    ...[...new Map(items.map((item) => [item.patient.patient_id, item.clinic_id]))].map(([id, clinicId]): AuditedResource => ({
      type: 'patient',
      id,
      clinicId,
    })),
  ]);
  return {
    items,
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.hold_since, id: last.id }) : null,
  };
}

function toHoldQueueItem(row: HeldOrderRow, ageBusinessHours: number): HoldQueueItemData {
  const code = row.hold_reason_code ?? 'other';
  // As the order's own view writes its hold (holds/hold-view.ts holdOf).
  return {
    medication_request_id: row.id,
    clinic_id: row.clinic_id,
    clinic_name: row.clinic_name,
    patient: { patient_id: row.patient_id, first_name: row.patient_first_name, last_name: row.patient_last_name },
    held_from: row.held_from === 'processing' || row.held_from === 'shipped' ? row.held_from : 'pending',
    hold: {
      reason_code: code,
      reason: holdReasonOf(code)?.reason ?? code,
      message: row.hold_message ?? '',
      waiting_on: (row.hold_waiting_on ?? 'pharmacy') as WaitingOn,
      since: row.hold_since,
    },
    answered_at: row.hold_answered_at ?? null,
    age_business_hours: ageBusinessHours,
    created_at: row.created_at,
  };
}

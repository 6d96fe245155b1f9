import type { AuditedReadContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import { notFound } from '../errors.js';
import type { MedicationRequestStatus } from './medication-request-status.js';
import { loadMedicationRequestView, toAdminSummary } from './medication-request-view.js';
import type { AdminMedicationRequestSummaryData } from './medication-request-admin.schemas.js';
import type { MedicationRequestViewData } from './medication-request.schemas.js';
import * as repo from './medication-request.repository.js';

/**
 * GET /api/admin/medication-requests: newest first, keyset-paginated (stable under inserts). Every
 * order listed is audited as read by the operator.
 */
export async function listMedicationRequests(
  ctx: AuditedReadContext,
  query: { status?: MedicationRequestStatus; clinic_id?: string; limit?: number; cursor?: string },
  audit: AuditContext,
): Promise<Page<AdminMedicationRequestSummaryData>> {
  const limit = query.limit ?? 50;
  const rows = await repo.listMedicationRequestsPage(ctx.db, {
    ...(query.status ? { status: query.status } : {}),
    ...(query.clinic_id ? { clinicId: query.clinic_id } : {}),
    ...(query.cursor ? { before: decodeCursor(query.cursor) } : {}),
    limit: limit + 1,
  });
  const counts = await repo.countItemsOfMedicationRequests(
    ctx.db,
    rows.slice(0, limit).map((r) => r.id),
  );
  const page = toPage(rows, limit, (listed) => listed.map((r) => toAdminSummary(r, counts.get(r.id) ?? 0)));
  ctx.audit.recordReads(
    audit,
    page.items.map((r) => ({ type: 'medication_request', id: r.medication_request_id, clinicId: r.clinic_id })),
  );
  return page;
}

/** GET /api/admin/medication-requests/{id}: any clinic's order, in full (what the pharmacy fills). Audited as a read. */
export async function getMedicationRequestForOperator(
  ctx: AuditedReadContext,
  medicationRequestId: string,
  audit: AuditContext,
): Promise<MedicationRequestViewData> {
  const order = await repo.findMedicationRequestUnscoped(ctx.db, medicationRequestId);
  if (!order) throw notFound('Medication request not found');
  ctx.audit.recordReads(audit, [{ type: 'medication_request', id: order.id, clinicId: order.clinic_id }]);
  return loadMedicationRequestView(ctx.db, order);
}

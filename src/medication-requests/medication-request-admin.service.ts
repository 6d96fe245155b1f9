import type { ReadContext } from '../context.js';
import { decodeCursor, toPage, type Page } from '../db/keyset-page.js';
import { notFound } from '../errors.js';
import type { MedicationRequestStatus } from './medication-request-status.js';
import { loadMedicationRequestView, toAdminSummary } from './medication-request-view.js';
import type { AdminMedicationRequestSummaryData } from './medication-request-admin.schemas.js';
import type { MedicationRequestViewData } from './medication-request.schemas.js';
import * as repo from './medication-request.repository.js';

/** GET /api/admin/medication-requests: newest first, keyset-paginated (stable under inserts). */
export async function listMedicationRequests(
  ctx: ReadContext,
  query: { status?: MedicationRequestStatus; clinic_id?: string; limit?: number; cursor?: string },
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
  return toPage(rows, limit, (page) => page.map((r) => toAdminSummary(r, counts.get(r.id) ?? 0)));
}

/** GET /api/admin/medication-requests/{id}: any clinic's order, in full (what the pharmacy fills). */
export async function getMedicationRequestForOperator(
  ctx: ReadContext,
  medicationRequestId: string,
): Promise<MedicationRequestViewData> {
  const order = await repo.findMedicationRequestUnscoped(ctx.db, medicationRequestId);
  if (!order) throw notFound('Medication request not found');
  return loadMedicationRequestView(ctx.db, order);
}

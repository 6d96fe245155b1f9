import { notFoundIn } from '../audit/denied-access.js';
import type { AuditContext } from '../audit/audit-actor.js';
import type { AuditedReadContext } from '../context.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { OrderStatus } from '../orders/order-status.js';
import * as requests from '../orders/order.repository.js';
import type { RefillRequestViewData } from './refill.schemas.js';
import * as refills from './refill.repository.js';

/** GET /api/external/refill-request/{id}: another clinic's refill request is not found. Audited as a read. */
export async function getRefillRequest(
  ctx: AuditedReadContext,
  identity: PartnerIdentity,
  refillRequestId: string,
  audit: AuditContext,
): Promise<RefillRequestViewData> {
  const row = await refills.findRefillRequest(ctx.db, identity.clinicId, refillRequestId);
  if (!row) throw notFoundIn({ type: 'refill_request', id: refillRequestId }, 'Refill request not found');
  await ctx.audit.recordReads(audit, [{ type: 'refill_request', id: row.id, clinicId: row.clinic_id }]);
  const order = await requests.findOrder(ctx.db, identity.clinicId, row.new_medication_request_id);
  return {
    refill_request_id: row.id,
    status: row.status as RefillRequestViewData['status'],
    medication_request_id: row.medication_request_id,
    medication_order_id: row.new_medication_request_id,
    medication_order_status: (order?.status ?? 'pending') as OrderStatus,
    shipment_group_id: row.shipment_group_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

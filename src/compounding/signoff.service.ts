import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import type { ServiceContext } from '../context.js';
import { constraintViolation } from '../db/constraints.js';
import type { Trx } from '../db/database.js';
import { AppError, conflict, fieldError } from '../errors.js';
import { newId } from '../shared/ids.js';
import { signedInPharmacist, type ActingPharmacist } from '../staff/acting-staff.js';
import type { OrderStatus } from '../orders/order-status.js';
import { loadForUpdate } from '../orders/order-transition.js';
import type { OrderTable } from '../orders/order.tables.js';
import type { OrderSignoffTable } from './compounding.tables.js';
import { filledBy, namedItems, unfilledItems } from './final-check.js';
import { listItemsToFill } from './order-fill.repository.js';
import { checkedProblem, REVIEW_CHECKS, SIGNOFF_LABELS, signoffKindOf, signoffRefusal, type SignoffKind } from './signoff.js';
import type { SignoffInput, SignoffViewData } from './signoff.schemas.js';
import { toSignoffView } from './signoff-view.js';
import * as repo from './signoff.repository.js';

/**
 * Records a pharmacist's sign-off of an order (docs/compounding.md#sign-offs), with the audit row
 * `sign_off`, in one change. Only the pharmacist signed in to the console as themselves signs
 * (staff/acting-staff.ts): the operator token, the command line, an admin and a technician are
 * refused with 403, and `pharmacist_id`, if given, must be the signer's own (400). A review records
 * its three checks (400 naming `checked` without them). The final check waits for every item's fill
 * (409 naming the unfilled ones) and, with REQUIRE_INDEPENDENT_CHECK, is refused to the pharmacist
 * who recorded a fill (403). 409 when the order already has that sign-off or is past the point where
 * it is given. `kind` may be `product_check`, the final check's 1.2.0 name.
 */
export async function signOffOrder(
  ctx: ServiceContext,
  orderId: string,
  input: SignoffInput,
  audit: AuditContext,
): Promise<SignoffViewData> {
  const kind = signoffKindOf(input.kind);
  try {
    return await runChange(ctx, audit, async (change) => {
      const trx = await change.transaction();
      const pharmacist = await signedInPharmacist(trx, audit, 'sign off an order');
      if (input.pharmacist_id !== undefined && input.pharmacist_id !== pharmacist.id) {
        throw fieldError('pharmacist_id', 'must be your own staff id: a pharmacist signs off as themselves');
      }
      const problem = checkedProblem(kind, input.checked);
      if (problem !== null) throw fieldError('checked', problem);
      const order = await loadForUpdate(trx, 'all', orderId);
      const refusal = signoffRefusal(kind, order.status as OrderStatus, order.held_from ?? null);
      if (refusal !== null) {
        throw conflict(`The ${SIGNOFF_LABELS[kind]} cannot be signed off now: the medication request ${refusal}`, {
          status: refusal,
        });
      }
      if (kind === 'final_check') await requireFinalCheckReady(trx, order, pharmacist, ctx.config.requireIndependentCheck);
      const existing = await repo.findSignoff(trx, order.id, kind);
      if (existing) throw alreadySigned(kind, existing);
      const row: OrderSignoffTable = {
        id: newId(),
        medication_request_id: order.id,
        kind,
        checked: kind === 'prescription_review' ? JSON.stringify(REVIEW_CHECKS) : null,
        pharmacist_id: pharmacist.id,
        pharmacist_name: pharmacist.name,
        at: change.at,
      };
      change.write(repo.signoffInsert(change, row));
      change.audit('sign_off', { type: 'medication_request', id: order.id, clinicId: order.clinic_id });
      return toSignoffView(row);
    });
  } catch (error) {
    // Two sign-offs of one kind sent together: the unique key lets one in.
    if (constraintViolation(error) === 'unique') throw alreadySigned(kind, null);
    throw error;
  }
}

/**
 * The final check's conditions on the fills, read in the sign-off's transaction (the order's row is
 * locked: a fill, which updates it first, is either seen or waits): 409 naming each item without a
 * fill; with `independent` (REQUIRE_INDEPENDENT_CHECK), 403 when the signer recorded any of them.
 */
async function requireFinalCheckReady(trx: Trx, order: OrderTable, pharmacist: ActingPharmacist, independent: boolean) {
  const items = await listItemsToFill(trx, order.id);
  const unfilled = unfilledItems(items);
  if (unfilled.length > 0) {
    throw conflict(
      `The final check is given once every item is filled: ${namedItems(unfilled.map(({ item }) => item))} ${unfilled.length === 1 ? 'has' : 'have'} no fill. Record it with POST /api/admin/medication-requests/${order.id}/fill`,
      Object.fromEntries(
        unfilled.map(({ index, item }) => [
          `medication_requests[${index}].fill`,
          `is not recorded: ${item.medication} (item ${item.id}) must be filled before the final check`,
        ]),
      ),
    );
  }
  const own = filledBy(items, pharmacist.id);
  if (independent && own.length > 0) {
    throw new AppError(
      'FORBIDDEN',
      403,
      `The final check must be given by another pharmacist (REQUIRE_INDEPENDENT_CHECK): you recorded the fill of ${namedItems(own)}`,
      { kind: 'final_check is given by a pharmacist who recorded none of the order’s fills' },
    );
  }
}

function alreadySigned(kind: SignoffKind, existing: OrderSignoffTable | null) {
  const by = existing ? ` by ${existing.pharmacist_name} at ${existing.at}` : '';
  return conflict(`The ${SIGNOFF_LABELS[kind]} of this medication request is already signed off${by}`, {
    kind: `${kind} is already signed off`,
  });
}

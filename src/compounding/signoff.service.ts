import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import type { ReadContext, ServiceContext } from '../context.js';
import { constraintViolation } from '../db/constraints.js';
import type { Trx } from '../db/database.js';
import { conflict, fieldError } from '../errors.js';
import { newId } from '../shared/ids.js';
import { findStaffMember } from '../staff/staff.service.js';
import type { OrderStatus } from '../orders/order-status.js';
import { loadForUpdate } from '../orders/order-transition.js';
import type { OrderSignoffTable } from './compounding.tables.js';
import { SIGNOFF_LABELS, signoffRefusal, type SignoffKind } from './signoff.js';
import type { SignoffInput, SignoffViewData } from './signoff.schemas.js';
import { toSignoffView } from './signoff-view.js';
import * as repo from './signoff.repository.js';

/** Who signs: the staff member's id and name as the sign-off keeps them. */
interface Pharmacist {
  readonly id: string;
  readonly name: string;
}

/**
 * Records a pharmacist's sign-off of an order (docs/compounding.md#sign-offs), with the audit row
 * `sign_off`, in one change. A pharmacist signed in to the console signs as themselves; the operator
 * token, the command line and an admin name the pharmacist with `pharmacist_id` (an enabled account
 * with the pharmacist role): the token alone cannot sign, a sign-off always names a person. 409 when
 * the order already has that sign-off or is past the point where it is given.
 */
export async function signOffOrder(
  ctx: ServiceContext,
  orderId: string,
  input: SignoffInput,
  audit: AuditContext,
): Promise<SignoffViewData> {
  try {
    return await runChange(ctx, audit, async (change) => {
      const trx = await change.transaction();
      const pharmacist = await signerOf(trx, audit, input.pharmacist_id);
      const order = await loadForUpdate(trx, 'all', orderId);
      const refusal = signoffRefusal(input.kind, order.status as OrderStatus, order.held_from ?? null);
      if (refusal !== null) {
        throw conflict(`The ${SIGNOFF_LABELS[input.kind]} cannot be signed off now: the medication request ${refusal}`, {
          status: refusal,
        });
      }
      const existing = await repo.findSignoff(trx, order.id, input.kind);
      if (existing) throw alreadySigned(input.kind, existing);
      const row: OrderSignoffTable = {
        id: newId(),
        medication_request_id: order.id,
        kind: input.kind,
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
    if (constraintViolation(error) === 'unique') throw alreadySigned(input.kind, null);
    throw error;
  }
}

/**
 * The person a sign-off names. A pharmacist's own session signs as them (`pharmacist_id`, if given,
 * must be theirs); anyone else (the operator token, an admin, the command line) must name an enabled
 * pharmacist by `pharmacist_id`.
 */
async function signerOf(trx: Trx, audit: AuditContext, pharmacistId: string | undefined): Promise<Pharmacist> {
  const { actor } = audit;
  if (actor.type === 'staff') {
    const self = await findStaffMember(trx, actor.staffId);
    if (self?.role === 'pharmacist') {
      if (pharmacistId !== undefined && pharmacistId !== actor.staffId) {
        throw fieldError('pharmacist_id', 'must be your own staff id: a pharmacist signs off as themselves');
      }
      return { id: self.staff_id, name: self.name };
    }
  }
  if (pharmacistId === undefined) {
    throw fieldError(
      'pharmacist_id',
      'is required: a sign-off names the pharmacist who made it (the staff id of an account with the pharmacist role)',
    );
  }
  const named = await findStaffMember(trx, pharmacistId);
  if (named?.role !== 'pharmacist' || named.disabled_at !== null) {
    throw fieldError('pharmacist_id', 'must be the staff id of an enabled staff member with the pharmacist role');
  }
  return { id: named.staff_id, name: named.name };
}

function alreadySigned(kind: SignoffKind, existing: OrderSignoffTable | null) {
  const by = existing ? ` by ${existing.pharmacist_name} at ${existing.at}` : '';
  return conflict(`The ${SIGNOFF_LABELS[kind]} of this medication request is already signed off${by}`, {
    kind: `${kind} is already signed off`,
  });
}

/** An order's sign-offs, oldest first, as the pharmacy reads them. */
export async function listOrderSignoffs(ctx: ReadContext, orderId: string): Promise<SignoffViewData[]> {
  return (await repo.listSignoffs(ctx.db, orderId)).map(toSignoffView);
}

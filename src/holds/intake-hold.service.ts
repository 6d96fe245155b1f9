import { openedHold } from './hold-stack.js';
import type { DialectName, Trx } from '../db/database.js';
import { allergiesOf } from '../patients/allergies.js';
import { DEFAULT_ALLERGY_CLASSES } from '../patients/allergy-classes.js';
import { allergyClassesIn } from '../patients/allergy-classes.service.js';
import type { PatientTable } from '../patients/patient.tables.js';
import { newId } from '../shared/ids.js';
import { hasSomethingToCompare, intakeHoldOf, type IntakeHold, type OrderedEntry } from './intake-hold.js';
import { findItemsInUse, lockPatientIntake } from './intake-hold.repository.js';
import type { OrderTable } from '../orders/order.tables.js';
import type { HeldAtCreation } from '../orders/new-order.js';
import { holdInsert } from './order-holds.repository.js';
import { oneMsLater } from '../shared/instants.js';

/**
 * Whether a new order's intake needs its transaction: when some ordered entry has a formula or a
 * therapeutic class (there is something to compare), or it replaces another order. Otherwise the
 * order is stored without one (a single statement on PostgreSQL).
 */
export const intakeNeedsTransaction = (entries: readonly (OrderedEntry | undefined)[], replaces: number): boolean =>
  replaces > 0 || hasSomethingToCompare(entries);

/**
 * The hold a new order (an original or a refill, of chain `chainOriginId`) takes at intake, or null
 * (intake-hold.ts), inside the order's transaction `trx`. First takes the patient's intake lock, so
 * that two orders of one patient at the same moment are compared one after the other (the second
 * sees the first); then reads the patient's items in use, and the allergy classes when the patient
 * has allergies. Reads nothing, and takes no lock, when there is nothing to compare and nothing
 * replaced. The patient's allergies come with the order's parties' read. `replaced`: the orders this
 * one replaces, never duplicates of it.
 */
export async function intakeHold(
  ctx: { dialect: DialectName },
  trx: Trx,
  clinicId: string,
  patient: Pick<PatientTable, 'id' | 'allergies'>,
  entries: readonly (OrderedEntry | undefined)[],
  chainOriginId: string | null,
  now: string,
  replaced: ReadonlySet<string> = new Set(),
): Promise<IntakeHold | null> {
  if (!intakeNeedsTransaction(entries, replaced.size)) return null;
  await lockPatientIntake(trx, ctx.dialect, patient.id);
  if (!hasSomethingToCompare(entries)) return null;
  const allergies = allergiesOf(patient);
  const inUse = await findItemsInUse(trx, clinicId, patient.id);
  const classes = allergies !== null && allergies.length > 0 ? await allergyClassesIn(trx) : DEFAULT_ALLERGY_CLASSES;
  return intakeHoldOf({ entries, allergies, inUse, chainOriginId, now, classes, replaced });
}

/** Who holds an order at intake, in its history: the pharmacy's check, not a person. */
export const INTAKE_CHECK = 'Intake check';

/**
 * A new order held at intake, a millisecond after it was created so that its history and events
 * read created, then held: the order's row as stored (on hold, waiting on the pharmacy, resuming to
 * pending), the hold's own row (a clinical one: only a pharmacist's override resolves it), the
 * history row of the hold, and `order.on_hold` (ids and codes only, never the message).
 */
export function heldAtIntake(request: OrderTable, hold: IntakeHold): HeldAtCreation {
  const at = oneMsLater(request.created_at);
  const holdRow = openedHold({
    medication_request_id: request.id,
    reason_code: hold.reason_code,
    waiting_on: 'pharmacy',
    message: hold.message,
    opened_at: at,
    opened_by: 'operator',
    opened_by_id: null,
    opened_by_name: INTAKE_CHECK,
  });
  return {
    writes: (target) => [holdInsert(target, holdRow)],
    order: {
      ...request,
      status: 'on_hold',
      updated_at: at,
      hold_reason_code: hold.reason_code,
      hold_message: hold.message,
      hold_waiting_on: 'pharmacy',
      hold_since: at,
      held_from: 'pending',
      hold_answered_at: null,
    },
    history: {
      id: newId(),
      medication_request_id: request.id,
      from_status: 'pending',
      to_status: 'on_hold',
      actor: 'operator',
      actor_id: null,
      actor_name: INTAKE_CHECK,
      at,
      kind: 'hold',
      reason_code: hold.reason_code,
      waiting_on: 'pharmacy',
      message: hold.message,
      hold_id: holdRow.id,
    },
    event: {
      clinicId: request.clinic_id,
      type: 'order.on_hold',
      payload: { medication_request_id: request.id, status: 'on_hold', reason_code: hold.reason_code, waiting_on: 'pharmacy' },
    },
    at,
  };
}

import type { ReadContext } from '../context.js';
import type { NewOutboxEvent } from '../events/event-types.js';
import { allergiesOf } from '../patients/allergies.js';
import type { PatientTable } from '../patients/patient.tables.js';
import { newId } from '../shared/ids.js';
import { hasActiveIngredients, intakeHoldOf, type IntakeHold, type OrderedEntry } from './intake-hold.js';
import { findItemsInUse } from './intake-hold.repository.js';
import type { OrderTable, StatusHistoryTable } from '../orders/order.tables.js';
import { oneMsLater } from '../shared/instants.js';

/**
 * The hold a new order (an original or a refill, of chain `chainOriginId`) takes at intake, or null
 * (intake-hold.ts). Reads nothing when no ordered entry has a formula; otherwise reads the patient's
 * items in use in one query. The patient's allergies come with the order's parties' read.
 */
export async function intakeHold(
  ctx: ReadContext,
  clinicId: string,
  patient: Pick<PatientTable, 'id' | 'allergies'>,
  entries: readonly (OrderedEntry | undefined)[],
  chainOriginId: string | null,
  now: string,
): Promise<IntakeHold | null> {
  if (!hasActiveIngredients(entries)) return null;
  const inUse = await findItemsInUse(ctx.db, clinicId, patient.id);
  return intakeHoldOf({ entries, allergies: allergiesOf(patient), inUse, chainOriginId, now });
}

/** Who holds an order at intake, in its history: the pharmacy's check, not a person. */
export const INTAKE_CHECK = 'Intake check';

/**
 * A new order held at intake, a millisecond after it was created so that its history and events
 * read created, then held: the order's row as stored (on hold, waiting on the pharmacy, resuming to
 * pending), the history row of the hold, and `order.on_hold` (ids and codes only, never the message).
 */
export function heldAtIntake(
  request: OrderTable,
  hold: IntakeHold,
): { order: OrderTable; history: StatusHistoryTable; event: NewOutboxEvent; at: string } {
  const at = oneMsLater(request.created_at);
  return {
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
    },
    event: {
      clinicId: request.clinic_id,
      type: 'order.on_hold',
      payload: { medication_request_id: request.id, status: 'on_hold', reason_code: hold.reason_code, waiting_on: 'pharmacy' },
    },
    at,
  };
}

import { newId } from '../shared/ids.js';
import type { SystemChange } from '../changes/run-change.js';
import { toFlag } from '../db/columns.js';
import type { NewOutboxEvent } from '../events/event-types.js';
import type { Write, WriteTarget } from '../db/write.js';
import { blankToNull } from '../shared/text.js';
import type { OrderTable, MedicationItemTable, StatusHistoryTable } from './order.tables.js';
import type { MedicationItemInput } from './order.schemas.js';
import * as repo from './order.repository.js';

/*
 * A new order's rows and events (an original, or a refill: refills/refill.service.ts), written as
 * part of the caller's change. The intake's checks are the callers' (fulfillment/order-intake.service.ts).
 */

/**
 * A new order held at its creation (holds/intake-hold.service.ts heldAtIntake, by the intake's
 * allergy and duplicate-therapy checks): its row as stored (on hold), the hold's history row and its
 * `order.on_hold` at `at`.
 */
export interface HeldAtCreation {
  order: OrderTable;
  history: StatusHistoryTable;
  event: NewOutboxEvent;
  at: string;
  /** The rows of the hold itself (holds/order-holds.repository.ts), written after the order's. */
  writes(target: WriteTarget): Write[];
}

/**
 * Stores a new order (an original or a refill) as part of the caller's change: the order, its
 * prescription and items, the first history row (pending, by the partner) and the `order.created`
 * event. Held at its creation (`held`: holds/intake-hold.service.ts heldAtIntake), the order is
 * stored on hold, with the hold's history row and `order.on_hold` after `order.created`.
 *
 * The order's events are counted in its INSERT (docs/webhooks.md#ordering): `order.created` is
 * sequence 1, an intake hold's `order.on_hold` 2, and `laterEvents` more are kept for events of the
 * same change the caller sends (a refill's `refill.ready`). Returns the first sequence kept for them.
 */
export function storeNewOrder(
  change: SystemChange,
  request: OrderTable,
  prescription: { id: string; original_prescription_id: string | null },
  items: MedicationItemTable[],
  held: HeldAtCreation | null = null,
  laterEvents = 0,
): number {
  const own = held === null ? 1 : 2;
  const counted: OrderTable = { ...(held?.order ?? request), event_sequence: own + laterEvents };
  if (held === null) {
    change.write(...newOrderWrites(change, counted, prescription, items));
    change.event(orderCreated(request), request.created_at);
    return own + 1;
  }
  change.write(
    ...newOrderWrites(change, counted, prescription, items),
    ...held.writes(change),
    repo.historyInsert(change, held.history),
  );
  change.event(orderCreated(request), request.created_at);
  change.event({ ...held.event, payload: { ...held.event.payload, sequence: 2 } }, held.at);
  return own + 1;
}

/** The rows of a new medication request: the request, its prescription and items, the first history row. */
function newOrderWrites(
  change: WriteTarget,
  request: OrderTable,
  prescription: { id: string; original_prescription_id: string | null },
  items: MedicationItemTable[],
): Write[] {
  // The order's creation (a held order's row carries its later hold's time as updated_at).
  const at = request.created_at;
  return [
    repo.orderInsert(change, request),
    repo.prescriptionInsert(change, {
      ...prescription,
      clinic_id: request.clinic_id,
      medication_request_id: request.id,
      created_at: at,
    }),
    ...(items.length > 0 ? [repo.itemsInsert(change, items)] : []),
    repo.historyInsert(change, {
      id: newId(),
      medication_request_id: request.id,
      from_status: null,
      to_status: 'pending',
      actor: 'partner',
      // A partner's order names no person: the pharmacy's history names its own staff only.
      actor_id: null,
      actor_name: null,
      at,
    }),
  ];
}

/** `order.created`: ids and the status only (never PHI). */
function orderCreated(request: OrderTable): NewOutboxEvent {
  return {
    clinicId: request.clinic_id,
    type: 'order.created',
    payload: {
      medication_request_id: request.id,
      status: 'pending',
      patient_id: request.patient_id,
      practitioner_id: request.practitioner_id,
      refill_of: request.refill_of,
      sequence: 1,
    },
  };
}

/**
 * The row of an item of a new order, as the partner ordered it (named as the formulary names its
 * entry). The quantity's unit is the partner's, else the entry's dispense unit (`dispenseUnit`:
 * medications/dispense-unit.ts, `each` for an entry without one); never the dose's unit, since a
 * dose says how much the patient takes and the quantity how much is dispensed (issue 39, item 9).
 */
export function newItemRow(
  item: MedicationItemInput,
  position: number,
  prescriptionId: string,
  entry: { id: string | null; name: string; dispenseUnit: string },
): MedicationItemTable {
  const id = newId();
  const unit = blankToNull(item.unit_of_measure) ?? entry.dispenseUnit;
  return {
    id,
    prescription_id: prescriptionId,
    position,
    origin_item_id: id,
    medication_id: entry.id,
    medication: entry.name,
    dose: item.dose.trim(),
    unit_of_measure: unit,
    quantity: item.quantity,
    refills: Number(item.refills ?? '0'),
    refills_used: 0,
    direction: item.direction.trim(),
    days_supply: item.days_supply ?? null,
    flavor: blankToNull(item.flavor),
    notes: blankToNull(item.notes),
    do_not_refill: toFlag(item.do_not_refill),
    do_not_fill: toFlag(item.do_not_fill),
    patient_contact_requested: toFlag(item.patient_contact_requested),
    reason_for_compounding: blankToNull(item.reason_for_compounding),
    reason_for_compounding_additional_context: blankToNull(item.reason_for_compounding_additional_context),
  };
}

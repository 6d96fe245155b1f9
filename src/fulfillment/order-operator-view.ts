import { fromFlag } from '../db/columns.js';
import { phoneOf } from '../patients/patient-phone.js';
import { centsToDollars } from '../shared/money.js';
import type { OrderStatus } from '../orders/order-status.js';
import { toMedication } from '../medications/medication.service.js';
import type { PharmacyIdentity } from '../pharmacy-identity.js';
import type {
  ChainRow,
  ItemEntryRow,
  PatientAndPrescriber,
  QueueItemRow,
  QueueRow,
} from '../orders/order-operator.repository.js';
import type { OperatorOrderSummaryData } from './order-operator.schemas.js';
import type { OperatorOrderDetailData } from './order-operator-detail.schemas.js';
import type { OrderViewData } from './order-view.schemas.js';
import type { Actor } from '../orders/order-status.js';
import type { StatusHistoryTable } from '../orders/order.tables.js';
import type { FillIngredientLotTable, OrderSignoffTable } from '../compounding/compounding.tables.js';
import type { ItemToFill } from '../compounding/order-fill.repository.js';
import { beyondUseOf } from '../compounding/order-fill-view.js';
import { formulaOfItem } from '../compounding/order-fill.rules.js';
import type { OperatorItemFillData } from '../compounding/order-fill.schemas.js';
import type { Storage } from '../medications/beyond-use.js';
import { toSignoffView } from '../compounding/signoff-view.js';
import { statusMoves } from '../orders/order-core-view.js';
import { holdEntry, holdSteps } from '../holds/hold-view.js';
import { holdReasonOf, type WaitingOn } from '../holds/hold-reasons.js';
import { allergiesOf } from '../patients/allergies.js';

/** How the console writes a patient's name: first, middle (when there is one), last. */
export const fullName = (first: string, middle: string | null, last: string): string =>
  [first, middle, last].filter((part) => part !== null && part !== '').join(' ');

/** A row of the operator's queue: the order, its medications, and its age in working hours. */
export function toOperatorSummary(order: QueueRow, items: QueueItemRow[], ageBusinessHours: number): OperatorOrderSummaryData {
  return {
    medication_request_id: order.id,
    clinic_id: order.clinic_id,
    clinic_name: order.clinic_name,
    patient_id: order.patient_id,
    patient_name: fullName(order.patient_first_name, order.patient_middle_name, order.patient_last_name),
    patient_dob: order.patient_dob,
    practitioner_id: order.practitioner_id,
    practitioner_name: fullName(order.practitioner_first_name, null, order.practitioner_last_name),
    practitioner_npi: order.practitioner_npi,
    practitioner_is_veterinarian: fromFlag(order.practitioner_is_veterinarian),
    status: order.status as OrderStatus,
    item_count: items.length,
    medications: items.map(({ medication, dose, unit_of_measure, quantity }) => ({
      medication,
      dose,
      unit_of_measure,
      quantity,
    })),
    age_business_hours: ageBusinessHours,
    carrier_id: order.carrier_id,
    carrier_name: order.carrier_name,
    service_id: order.service_id,
    service_name: order.service_name,
    total_cost: centsToDollars(order.shipping_total_cents),
    tracking_number: order.tracking_number,
    refill_of: order.refill_of,
    is_refrigerated: fromFlag(order.is_refrigerated),
    created_at: order.created_at,
    updated_at: order.updated_at,
    hold: queueHold(order),
  };
}

function queueHold(order: QueueRow): OperatorOrderSummaryData['hold'] {
  const code = order.hold_reason_code ?? null;
  if (order.status !== 'on_hold' || code === null) return null;
  return {
    reason_code: code,
    reason: holdReasonOf(code)?.reason ?? code,
    waiting_on: (order.hold_waiting_on ?? 'pharmacy') as WaitingOn,
    since: order.hold_since ?? order.updated_at,
  };
}

/** What the pharmacy reads of an order besides the partner's view and its parties. */
export interface OperatorExtras {
  /** The formulary entry of each item, in the items' order. */
  entries: ItemEntryRow[];
  pharmacy: PharmacyIdentity | null;
}

/**
 * The order as the pharmacy fills it: the partner's view, each item with its formulary entry, the
 * clinic's name, whom it ships to (with date of birth, sex and phone), who prescribed it, its chain,
 * and the pharmacy its label names.
 */
export function toOperatorDetail(
  view: OrderViewData,
  history: StatusHistoryTable[],
  party: PatientAndPrescriber,
  chain: ChainRow[],
  { entries, pharmacy }: OperatorExtras,
  fills: { items: ItemToFill[]; lots: FillIngredientLotTable[] },
  signoffs: OrderSignoffTable[],
): OperatorOrderDetailData {
  const { address_line_1, city, state, postal_code } = party;
  const own = view.shipping_address;
  const named = (h: StatusHistoryTable) => ({ actor_id: h.actor_id, actor_name: h.actor_name });
  const itemOf = new Map(fills.items.map((item) => [item.id, item]));
  return {
    ...view,
    // The entries are in the items' positions (order.repository.ts, listItemEntries).
    medication_requests: view.medication_requests.map((view, index) => {
      const entry = entries[index]?.entry ?? null;
      const item = itemOf.get(view.id);
      const formula = item ? formulaOfItem(item) : null;
      return {
        ...view,
        formulary_entry: entry === null ? null : toMedication(entry),
        medication_id: item?.medication_id ?? null,
        formula: formula && {
          ingredients: formula.ingredients,
          bud_category: formula.bud_category,
          preparation: formula.preparation,
          storage: formula.storage,
        },
        fill: item ? fullFill(item, fills.lots) : null,
      };
    }),
    pharmacy: pharmacy === null ? null : { ...pharmacy },
    status_history: statusMoves(history).map((h) => ({
      from: h.from_status,
      to: h.to_status,
      at: h.at,
      actor: h.actor as Actor,
      ...named(h),
      reason: h.to_status === 'cancelled' ? (h.message ?? null) : null,
    })),
    hold_history: holdSteps(history).map((row) => ({
      ...holdEntry(row),
      ...named(row),
      override_reason: row.override_reason ?? null,
    })),
    signoffs: signoffs.map(toSignoffView),
    clinic_name: party.clinic_name,
    patient: {
      patient_id: view.patient_id,
      first_name: party.first_name,
      middle_name: party.middle_name,
      last_name: party.last_name,
      dob: party.dob,
      species: party.species,
      gender: party.gender,
      phone: phoneOf(party.contacts),
      shipping_address: own
        ? {
            address_line_1: own.addressLine1,
            address_line_2: own.addressLine2,
            city: own.city,
            state: own.state,
            postal_code: own.postalCode,
          }
        : address_line_1 !== null && city !== null && state !== null && postal_code !== null
          ? { address_line_1, address_line_2: party.address_line_2, city, state, postal_code }
          : null,
      allergies: allergiesOf(party),
      no_known_allergies: party.no_known_allergies === 1,
    },
    practitioner: {
      practitioner_id: view.practitioner_id,
      first_name: party.practitioner_first_name,
      last_name: party.practitioner_last_name,
      npi: party.practitioner_npi,
      is_veterinarian: fromFlag(party.practitioner_is_veterinarian),
      phone: party.practitioner_phone,
    },
    refill_chain: chain.map((row) => ({
      medication_request_id: row.id,
      status: row.status as OrderStatus,
      refill_of: row.refill_of,
      created_at: row.created_at,
    })),
  };
}

/** The fill as the pharmacy reads it: everything recorded, with its ingredient lots and who recorded it. */
function fullFill(item: ItemToFill, lots: readonly FillIngredientLotTable[]): OperatorItemFillData | null {
  const fill = item.fill;
  if (fill === null) return null;
  return {
    lot_number: fill.lot_number,
    compounded_at: fill.compounded_at,
    beyond_use_date: fill.beyond_use_date,
    ...beyondUseOf(fill),
    beyond_use_limiting_lot: fill.beyond_use_limiting_lot ?? null,
    storage: fill.storage as Storage | null,
    generated: fill.generated === 1,
    ingredient_lots: lots
      .filter((lot) => lot.fill_id === fill.id)
      .map(({ ingredient, lot_number, expires_on }) => ({ ingredient, lot_number, expires_on })),
    filled_by_id: fill.filled_by_id,
    filled_by_name: fill.filled_by_name,
    filled_at: fill.created_at,
  };
}

/**
 * The one table of how the console writes the codes the API answers (issue 39, item 11): an order's
 * statuses and the hold reasons, as short labels, never the raw code (`on_hold` is "On hold",
 * `prescription_clarification` "Prescription clarification"). The hold reasons' long text (the
 * catalog's `reason`, what the partner reads) stays where a sentence fits; a label is for a badge,
 * a filter, a table's row or a chart's axis. Typed by the server's own lists, so a new status or
 * reason does not compile until it has its label.
 */
import type { OrderStatus } from '../../../src/orders/order-status.js';
import type { HoldReasonCode } from '../../../src/holds/hold-reasons.js';

export const STATUS_LABEL: Readonly<Record<OrderStatus, string>> = {
  pending: 'Pending',
  processing: 'Processing',
  on_hold: 'On hold',
  shipped: 'Shipped',
  delivered: 'Delivered',
  cancelled: 'Cancelled',
};

export const HOLD_REASON_LABEL: Readonly<Record<HoldReasonCode, string>> = {
  prescription_clarification: 'Prescription clarification',
  prescriber_outreach: 'Prescriber outreach',
  address_undeliverable: 'Address undeliverable',
  patient_unreachable: 'Patient unreachable',
  allergy_conflict: 'Allergy conflict',
  duplicate_therapy: 'Duplicate therapy',
  out_of_stock: 'Out of stock',
  state_not_licensed: 'State not licensed',
  delivery_exception: 'Delivery exception',
  other: 'Other',
};

/** A code the table does not know yet (a newer server): its words, capitalized (`new_code` → "New code"). */
const words = (code: string): string => {
  const text = code.replaceAll('_', ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

const LABELS: ReadonlyMap<string, string> = new Map([...Object.entries(STATUS_LABEL), ...Object.entries(HOLD_REASON_LABEL)]);

/** The label of a status or hold reason code. */
export const labelOf = (code: string): string => LABELS.get(code) ?? words(code);

/**
 * A status as a badge or the status history writes it: the label in lower case ("on hold",
 * "processing"), as they always were, so it reads as a word of the sentence beside it.
 */
export const statusWord = (status: string): string => labelOf(status).toLowerCase();

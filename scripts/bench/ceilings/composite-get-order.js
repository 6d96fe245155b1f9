// Composite ceiling of GET /api/external/medication-order/{id} (issue 19, item 1): the shared front
// (composite-front.js), then the project's queries through the raw driver (src/…/order view: the
// clinic's order by primary key; its items with their prescription and its status history side by
// side with the items' fills and the shipments left-joined to their events; the refill request of a
// refill and the origin items of a chain when there are any), the read
// recorded in the audit trail by group commit (composite-audit.js), and the route's own params and response
// schemas. Its database is the project's, migrated and provisioned by the project (setup.js): it reads
// it and appends audit rows, as the project does.
import { readAuditBuffer } from './composite-audit.js';
import { partnerOf, startComposite } from './composite-front.js';
import { AppError, clientAddress, Envelope, HOLD_REASONS, ORDER, trackingUrl } from './project-modules.js';

/** The catalog's texts, as the project shows them in `hold.reason` (src/holds/hold-reasons.ts). */
const HOLD_REASON_TEXT = new Map(HOLD_REASONS.map((reason) => [reason.code, reason.reason]));
/** The clinical reasons (a pharmacist's override resolves them), as the project marks them in `holds[].clinical`. */
const CLINICAL = new Set(HOLD_REASONS.filter((reason) => reason.clinical).map((reason) => reason.code));
const inOrder = (a, b) => (a.at === b.at ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.at < b.at ? -1 : 1);
const dollars = (cents) => Math.round(cents) / 100;
const placeholders = (n) => Array.from({ length: n }, () => '?').join(', ');

/** A medication's refill counters, from its chain's first item (do_not_refill authorizes none). */
function itemRefills(origin) {
  const authorized = origin.do_not_refill === 1 ? 0 : origin.refills;
  const used = origin.do_not_refill === 1 ? 0 : origin.refills_used;
  return { authorized, used, remaining: Math.max(0, authorized - used) };
}

/** The shipments of the left-joined rows, each with its events, in the rows' order. */
function shipmentsOf(rows, carrierName) {
  const byId = new Map();
  for (const row of rows) {
    let shipment = byId.get(row.id);
    if (shipment === undefined) {
      shipment = {
        shipment_id: row.id,
        carrier_id: row.carrier_id,
        service_id: row.service_id,
        tracking_number: row.tracking_number,
        tracking_url: trackingUrl(row.carrier_id, carrierName, row.tracking_number),
        status: row.status,
        estimated_delivery_date: row.estimated_delivery_date,
        events: [],
      };
      byId.set(row.id, shipment);
    }
    if (row.event_status !== null && row.event_occurred_at !== null) {
      shipment.events.push({
        status: row.event_status,
        occurred_at: row.event_occurred_at,
        location: row.event_location,
        description: row.event_description,
      });
    }
  }
  return [...byId.values()];
}

function toView(order, items, history, originById, refillRequestId, fills, shipmentRows, openHolds) {
  const fillOf = new Map(fills.map((fill) => [fill.medication_item_id, fill]));
  const origins = [...new Set(items.map((item) => item.origin_item_id))].flatMap((id) =>
    originById.has(id) ? [originById.get(id)] : [],
  );
  const counters = origins.map(itemRefills);
  const most = (field) => counters.reduce((max, each) => Math.max(max, each[field]), 0);
  return {
    medication_request_id: order.id,
    clinic_id: order.clinic_id,
    patient_id: order.patient_id,
    practitioner_id: order.practitioner_id,
    status: order.status,
    prescription_id: items[0]?.prescription_id ?? '',
    is_refrigerated: order.is_refrigerated === 1,
    signature_required: order.signature_required === 1,
    saturday_delivery: order.saturday_delivery === 1,
    shipment_group_id: order.shipment_group_id,
    medication_requests: items.map((item) => {
      const refills = itemRefills(originById.get(item.origin_item_id) ?? item);
      const fill = fillOf.get(item.id);
      return {
        id: item.id,
        medication: item.medication,
        dose: item.dose,
        unit_of_measure: item.unit_of_measure,
        quantity: item.quantity,
        refills: String(item.refills),
        direction: item.direction,
        days_supply: item.days_supply,
        flavor: item.flavor,
        notes: item.notes,
        do_not_refill: item.do_not_refill === 1,
        do_not_fill: item.do_not_fill === 1,
        patient_contact_requested: item.patient_contact_requested === 1,
        reason_for_compounding: item.reason_for_compounding,
        reason_for_compounding_additional_context: item.reason_for_compounding_additional_context,
        refills_authorized: refills.authorized,
        refills_used: refills.used,
        refills_remaining: refills.remaining,
        fill:
          fill === undefined
            ? null
            : { lot_number: fill.lot_number, beyond_use_date: fill.beyond_use_date, storage: fill.storage },
      };
    }),
    refills: { authorized: most('authorized'), used: most('used'), remaining: most('remaining') },
    shipping: {
      carrier_id: order.carrier_id,
      carrier_name: order.carrier_name,
      service_id: order.service_id,
      service_name: order.service_name,
      original_cost: dollars(order.shipping_original_cents),
      total_cost: dollars(order.shipping_total_cents),
      is_free_shipment: order.free_shipment_type !== null,
      free_shipment_type: order.free_shipment_type,
    },
    tracking_number: order.tracking_number,
    shipped_at: order.shipped_at,
    delivered_at: order.delivered_at,
    cancelled_at: order.cancelled_at,
    created_at: order.created_at,
    updated_at: order.updated_at,
    refill_of: order.refill_of,
    chain_origin_id: order.chain_origin_id,
    refill_request_id: refillRequestId,
    status_history: [...history]
      .sort(inOrder)
      .filter((row) => row.from_status !== row.to_status)
      .map((row) => ({ from: row.from_status, to: row.to_status, at: row.at, actor: row.actor })),
    hold:
      order.status === 'on_hold' && order.hold_reason_code !== null
        ? {
            reason_code: order.hold_reason_code,
            reason: HOLD_REASON_TEXT.get(order.hold_reason_code) ?? order.hold_reason_code,
            message: order.hold_message ?? '',
            waiting_on: order.hold_waiting_on ?? 'pharmacy',
            since: order.hold_since ?? order.updated_at,
          }
        : null,
    holds: openHolds.map((h) => ({
      hold_id: h.id,
      reason_code: h.reason_code,
      reason: HOLD_REASON_TEXT.get(h.reason_code) ?? h.reason_code,
      message: h.message ?? '',
      waiting_on: h.waiting_on,
      clinical: CLINICAL.has(h.reason_code),
      since: h.opened_at,
      answered_at: h.answered_at,
    })),
    hold_history: [...history]
      .sort(inOrder)
      .filter((row) => row.kind !== null && row.kind !== undefined)
      .map((row) => ({
        kind: row.kind,
        reason_code: row.reason_code,
        waiting_on: row.waiting_on,
        message: row.message,
        actor: row.actor,
        at: row.at,
      })),
    shipping_address:
      order.ship_to_address_line1 && order.ship_to_city && order.ship_to_state && order.ship_to_postal_code
        ? {
            addressLine1: order.ship_to_address_line1,
            addressLine2: order.ship_to_address_line2,
            city: order.ship_to_city,
            state: order.ship_to_state,
            postalCode: order.ship_to_postal_code,
          }
        : null,
    shipments: shipmentsOf(shipmentRows, order.carrier_name),
  };
}

await startComposite(async (app, { db }) => {
  const audit = readAuditBuffer(db);
  app.get(
    '/api/external/medication-order/:id',
    { schema: { params: ORDER.idParams, response: { 200: Envelope(ORDER.view) } } },
    async (request) => {
      const partner = partnerOf(request);
      const order = await db.one('bench_order', 'SELECT * FROM medication_requests WHERE clinic_id = ? AND id = ?', [
        partner.clinicId,
        request.params.id,
      ]);
      if (!order) throw new AppError('NOT_FOUND', 404, 'Medication request not found');
      // Committed before the answer leaves; the view is read meanwhile.
      const recorded = audit.recordRead(
        { partner, requestId: request.id, clientAddress: clientAddress(request) },
        { type: 'medication_request', id: order.id },
      );
      const [items, history, fills, shipmentRows, refillRequests, openHolds] = await Promise.all([
        db.all(
          'bench_order_items',
          `SELECT medication_items.*, prescriptions.medication_request_id FROM medication_items
             INNER JOIN prescriptions ON prescriptions.id = medication_items.prescription_id
             WHERE prescriptions.medication_request_id IN (?) ORDER BY medication_items.position`,
          [order.id],
        ),
        db.all(
          'bench_order_history',
          'SELECT * FROM medication_request_status_history WHERE medication_request_id IN (?) ORDER BY at, id',
          [order.id],
        ),
        db.all('bench_order_fills', 'SELECT * FROM medication_item_fills WHERE medication_request_id = ?', [order.id]),
        db.all(
          'bench_order_shipments',
          `SELECT s.*, e.status AS event_status, e.occurred_at AS event_occurred_at, e.location AS event_location,
                  e.description AS event_description
             FROM shipments s LEFT JOIN shipment_events e ON e.shipment_id = s.id
             WHERE s.medication_request_id = ? ORDER BY s.medication_request_id, s.id, e.occurred_at, e.id`,
          [order.id],
        ),
        order.refill_of === null
          ? []
          : db.all('bench_order_refill', 'SELECT * FROM refill_requests WHERE new_medication_request_id IN (?)', [order.id]),
        // The open holds, read only for an order on hold (as src/fulfillment/order-view.ts does).
        order.status !== 'on_hold'
          ? []
          : db.all(
              'bench_order_holds',
              'SELECT * FROM order_holds WHERE medication_request_id = ? AND resolved_at IS NULL ORDER BY opened_at, id',
              [order.id],
            ),
      ]);
      const loaded = new Set(items.map((item) => item.id));
      const missing = [...new Set(items.map((item) => item.origin_item_id))].filter((id) => !loaded.has(id));
      const origins =
        missing.length === 0
          ? []
          : await db.all(
              `bench_order_origins_${missing.length}`,
              `SELECT * FROM medication_items WHERE id IN (${placeholders(missing.length)}) ORDER BY position`,
              missing,
            );
      const originById = new Map([...items, ...origins].map((item) => [item.id, item]));
      const data = toView(order, items, history, originById, refillRequests[0]?.id ?? null, fills, shipmentRows, openHolds);
      await recorded;
      return { success: true, data, message: 'Medication request retrieved successfully' };
    },
  );
  return () => audit.close();
});

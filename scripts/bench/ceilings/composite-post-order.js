// Composite ceiling of POST /api/external/medication-order (issue 19, item 1): the shared front
// (composite-front.js: the project's JSON parser and body validation included), then what the
// project's create does (src/…/order service): the clinic scope, the same two reads side by side (the
// clinic's patient and practitioner with the shipping choice priced for the patient's state, in one
// query; the clinic's formulary entries), every business rule (species, address, formulary, shipping
// choice), then the same rows into the project's own tables and indexes: the order, its prescription,
// items and first status history row, the audit row of the change and the `order.created` outbox
// event. In one transaction on SQLite (prepared statements); on PostgreSQL as one prepared statement
// of data-modifying CTEs, atomic without BEGIN and COMMIT, as the project sends them
// (src/db/write-together.ts). Ids are UUIDv7. Its database is the project's, migrated and
// provisioned by the project (setup.js), apart from the project server's own, so that the project's
// worker never dispatches this process's events while it is measured.
import { v7 as uuidv7 } from 'uuid';
import { AUDIT_INSERT, auditRow } from './composite-audit.js';
import { assertClinicScope, partnerOf, startComposite } from './composite-front.js';
import { AppError, clientAddress, Envelope, ORDER } from './project-modules.js';

const PARTIES = `SELECT patients.id AS patient_id, patients.species, patients.address_line_1, patients.city,
    patients.state, patients.postal_code, practitioners.id AS practitioner_id, practitioners.is_veterinarian,
    clinics.free_shipping, carriers.id AS carrier_id, carriers.name AS carrier_name, shipping_services.id AS service_id,
    shipping_services.name AS service_name, shipping_services.price_cents, own.price_cents AS state_price_cents
  FROM clinics
  LEFT JOIN patients ON patients.clinic_id = clinics.id AND patients.id = ?
  LEFT JOIN practitioners ON practitioners.clinic_id = clinics.id AND practitioners.id = ?
  LEFT JOIN carriers ON carriers.id = ?
  LEFT JOIN shipping_services ON shipping_services.carrier_id = carriers.id AND shipping_services.id = ?
  LEFT JOIN shipping_service_state_prices AS own ON own.carrier_id = shipping_services.carrier_id
    AND own.service_id = shipping_services.id AND own.state_code = patients.state
  WHERE clinics.id = ?`;

/** An INSERT of `rows` rows into `table`'s `columns` (names apart by spaces), in the order the values come. */
const insert = (table, columns, rows = 1) => {
  const names = columns.trim().split(/\s+/);
  const row = `(${names.map(() => '?').join(', ')})`;
  return `INSERT INTO ${table} (${names.join(', ')}) VALUES ${Array.from({ length: rows }, () => row).join(', ')}`;
};
const ORDER_INSERT = insert(
  'medication_requests',
  `id clinic_id patient_id practitioner_id carrier_id carrier_name service_id service_name shipping_original_cents
   shipping_total_cents free_shipment_type is_refrigerated shipment_group_id refill_of chain_origin_id status tracking_number
   shipped_at delivered_at cancelled_at created_at updated_at`,
);
const PRESCRIPTION_INSERT = insert('prescriptions', 'id original_prescription_id clinic_id medication_request_id created_at');
const ITEMS_INSERTS = new Map();
/** All of an order's items in one INSERT, as the project writes them (built once per count). */
function itemsInsert(count) {
  let sql = ITEMS_INSERTS.get(count);
  if (sql === undefined) {
    const columns = `id prescription_id position origin_item_id medication_id medication dose unit_of_measure quantity refills
      refills_used direction days_supply flavor notes do_not_refill do_not_fill patient_contact_requested reason_for_compounding
      reason_for_compounding_additional_context`;
    ITEMS_INSERTS.set(count, (sql = insert('medication_items', columns, count)));
  }
  return sql;
}
const HISTORY_INSERT = insert('medication_request_status_history', 'id medication_request_id from_status to_status actor at');
const OUTBOX_INSERT = insert('outbox_events', 'id clinic_id type payload created_at dispatched_at');

const blankToNull = (value) => value?.trim() || null;
const flag = (value) => (value ? 1 : 0);
const medicationKey = (name) => name.trim().replace(/\s+/g, ' ').toLowerCase();
const placeholders = (n) => Array.from({ length: n }, () => '?').join(', ');

/** Every broken business rule at once (one 400), or the priced shipping choice. */
function checkRules(input, parties, formulary, keys) {
  const problems = [];
  const human = parties.species === 'human';
  if (parties.is_veterinarian === 1 && human) {
    problems.push({
      message: 'A veterinarian cannot prescribe for a human patient',
      details: { practitioner_id: 'is a veterinarian; the patient is human' },
    });
  } else if (parties.is_veterinarian !== 1 && !human) {
    problems.push({
      message: `A practitioner who is not a veterinarian cannot prescribe for a ${parties.species} patient`,
      details: { practitioner_id: `is not a veterinarian; the patient is ${parties.species}` },
    });
  }
  if (!(parties.address_line_1 && parties.city && parties.state && parties.postal_code)) {
    problems.push({
      message: 'The patient has no shipping address',
      details: { patient_id: 'the patient has no shipping address; add one before ordering' },
    });
  }
  const unknown = input.medication_requests.flatMap((item, i) => (formulary.has(keys[i]) ? [] : [{ item, i }]));
  if (unknown.length > 0) {
    const details = {};
    for (const { i } of unknown) details[`medication_requests[${i}].medication`] = 'is not in the clinic\u2019s formulary';
    const names = [...new Set(unknown.map(({ item }) => item.medication.trim()))];
    problems.push({ message: `Not in the clinic\u2019s formulary: ${names.join(', ')}`, details });
  }
  if (parties.carrier_id === null) {
    problems.push({
      message: `Unknown carrier ${input.carrier_id}`,
      details: { carrier_id: 'is not a known carrier; see GET /api/external/carriers' },
    });
  } else if (parties.service_id === null || parties.price_cents === null) {
    problems.push({
      message: `Carrier ${input.carrier_id} has no service ${input.service_id}`,
      details: {
        service_id: `is not a service of carrier ${input.carrier_id}; see GET /api/external/carriers/${input.carrier_id}/services`,
      },
    });
  }
  if (problems.length > 0) {
    throw new AppError(
      'VALIDATION_ERROR',
      400,
      `Validation failed: ${problems.map((p) => p.message).join('; ')}`,
      Object.assign({}, ...problems.map((p) => p.details)),
    );
  }
  const originalCents = parties.state_price_cents ?? parties.price_cents;
  const free = parties.free_shipping === 1;
  return { originalCents, totalCents: free ? 0 : originalCents, freeShipmentType: free ? 'clinic_specific' : null };
}

function itemRow(item, position, prescriptionId, entry) {
  const id = uuidv7();
  return [
    id,
    prescriptionId,
    position,
    id,
    entry?.id ?? null,
    entry?.name ?? item.medication.trim(),
    item.dose.trim(),
    // The partner's unit, else the entry's dispense unit, else `each` (medications/dispense-unit.ts).
    blankToNull(item.unit_of_measure) ?? entry?.dispense_unit ?? 'each',
    item.quantity,
    Number(item.refills ?? '0'),
    0,
    item.direction.trim(),
    item.days_supply ?? null,
    blankToNull(item.flavor),
    blankToNull(item.notes),
    flag(item.do_not_refill),
    flag(item.do_not_fill),
    flag(item.patient_contact_requested),
    blankToNull(item.reason_for_compounding),
    blankToNull(item.reason_for_compounding_additional_context),
  ];
}

await startComposite(async (app, { db }) => {
  app.post(
    '/api/external/medication-order',
    { schema: { body: ORDER.body, response: { 200: Envelope(ORDER.created) } } },
    async (request) => {
      const partner = partnerOf(request);
      const input = request.body;
      await assertClinicScope(db, partner, input.clinic_id, 'clinic_id');
      const clinicId = partner.clinicId;
      const keys = input.medication_requests.map((item) => medicationKey(item.medication));
      const distinct = [...new Set(keys)];
      const [parties, entries] = await Promise.all([
        db.one('bench_order_parties', PARTIES, [
          input.patient_id,
          input.practitioner_id,
          input.carrier_id,
          input.service_id,
          clinicId,
        ]),
        db.all(
          `bench_formulary_${distinct.length}`,
          `SELECT * FROM medications WHERE clinic_id = ? AND name_key IN (${placeholders(distinct.length)})`,
          [clinicId, ...distinct],
        ),
      ]);
      if (!parties) throw new AppError('NOT_FOUND', 404, 'Clinic not found');
      const patientMissing = parties.patient_id === null || parties.species === null;
      const practitionerMissing = parties.practitioner_id === null || parties.is_veterinarian === null;
      if (patientMissing || practitionerMissing) {
        const details = {};
        if (patientMissing) details.patient_id = 'no patient with this id in your clinic';
        if (practitionerMissing) details.practitioner_id = 'no practitioner with this id in your clinic';
        const what =
          patientMissing && practitionerMissing ? 'Patient and practitioner' : patientMissing ? 'Patient' : 'Practitioner';
        throw new AppError('NOT_FOUND', 404, `${what} not found`, details);
      }
      const formulary = new Map(entries.map((entry) => [entry.name_key, entry]));
      const shipping = checkRules(input, parties, formulary, keys);

      const now = new Date().toISOString();
      const orderId = uuidv7();
      const prescriptionId = uuidv7();
      const items = input.medication_requests.map((item, i) => itemRow(item, i, prescriptionId, formulary.get(keys[i])));
      const payload = JSON.stringify({
        medication_request_id: orderId,
        status: 'pending',
        patient_id: parties.patient_id,
        practitioner_id: parties.practitioner_id,
        refill_of: null,
      });
      const context = { partner, requestId: request.id, clientAddress: clientAddress(request) };
      const resource = { type: 'medication_request', id: orderId };
      await db.write(`bench_order_write_${items.length}`, [
        {
          name: 'bench_order_insert',
          sql: ORDER_INSERT,
          values: [
            orderId,
            clinicId,
            parties.patient_id,
            parties.practitioner_id,
            parties.carrier_id,
            parties.carrier_name,
            parties.service_id,
            parties.service_name,
            shipping.originalCents,
            shipping.totalCents,
            shipping.freeShipmentType,
            flag(input.is_refrigerated),
            blankToNull(input.shipment_group_id),
            null,
            null,
            'pending',
            null,
            null,
            null,
            null,
            now,
            now,
          ],
        },
        {
          name: 'bench_prescription_insert',
          sql: PRESCRIPTION_INSERT,
          values: [prescriptionId, null, clinicId, orderId, now],
        },
        { name: `bench_items_insert_${items.length}`, sql: itemsInsert(items.length), values: items.flat() },
        {
          name: 'bench_history_insert',
          sql: HISTORY_INSERT,
          values: [uuidv7(), orderId, null, 'pending', 'partner', now],
        },
        { name: 'bench_audit_insert', sql: AUDIT_INSERT, values: auditRow(now, context, 'create', resource) },
        {
          name: 'bench_outbox_insert',
          sql: OUTBOX_INSERT,
          values: [uuidv7(), clinicId, 'order.created', payload, now, null],
        },
      ]);
      return { success: true, data: { medication_request_id: orderId }, message: 'Medication request created successfully' };
    },
  );
});

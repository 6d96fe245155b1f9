// The tables the raw-database ceilings write an order into: the same five rows the project writes
// (order, prescription, item, status history, outbox event), with the same kinds of columns and
// indexes, but none of the project's reads before the transaction. Both ceilings share them so that
// the SQLite and PostgreSQL figures measure the same work.
import { randomUUID } from 'node:crypto';

/** One statement per table; valid on SQLite and PostgreSQL alike (text ids, integer flags). */
export const CREATE_TABLES = [
  `CREATE TABLE orders (id text PRIMARY KEY, clinic_id text NOT NULL, patient_id text NOT NULL,
     practitioner_id text NOT NULL, status text NOT NULL, carrier_id text NOT NULL, service_id text NOT NULL,
     shipping_total_cents integer NOT NULL, is_refrigerated integer NOT NULL, created_at text NOT NULL, updated_at text NOT NULL)`,
  'CREATE INDEX orders_clinic_idx ON orders (clinic_id, created_at)',
  `CREATE TABLE prescriptions (id text PRIMARY KEY, clinic_id text NOT NULL,
     order_id text NOT NULL REFERENCES orders (id), created_at text NOT NULL)`,
  `CREATE TABLE items (id text PRIMARY KEY, prescription_id text NOT NULL REFERENCES prescriptions (id),
     position integer NOT NULL, medication text NOT NULL, dose text NOT NULL, quantity real NOT NULL,
     refills integer NOT NULL, direction text NOT NULL, days_supply integer)`,
  `CREATE TABLE status_history (id text PRIMARY KEY, order_id text NOT NULL REFERENCES orders (id),
     from_status text, to_status text NOT NULL, actor text NOT NULL, at text NOT NULL)`,
  `CREATE TABLE outbox (id text PRIMARY KEY, clinic_id text NOT NULL, type text NOT NULL, payload text NOT NULL,
     created_at text NOT NULL, dispatched_at text)`,
  'CREATE INDEX outbox_undispatched_idx ON outbox (dispatched_at, created_at)',
];

/** The five inserts, with `?` placeholders (the pg ceiling numbers them). */
export const INSERTS = {
  order: `INSERT INTO orders (id, clinic_id, patient_id, practitioner_id, status, carrier_id, service_id,
     shipping_total_cents, is_refrigerated, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  prescription: 'INSERT INTO prescriptions (id, clinic_id, order_id, created_at) VALUES (?, ?, ?, ?)',
  item: `INSERT INTO items (id, prescription_id, position, medication, dose, quantity, refills, direction, days_supply)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  history: 'INSERT INTO status_history (id, order_id, from_status, to_status, actor, at) VALUES (?, ?, ?, ?, ?, ?)',
  outbox: 'INSERT INTO outbox (id, clinic_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)',
};

/** `?` → `$1, $2, …` for pg. */
export const numbered = (sql) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/**
 * The parameters of the five inserts for one validated order body. The benchmark's orders have one
 * medication each, so "items" is one statement, as in the project's path.
 */
export function orderRows(body) {
  const now = new Date().toISOString();
  const orderId = randomUUID();
  const prescriptionId = randomUUID();
  const item = body.medication_requests[0];
  const payload = JSON.stringify({
    medication_request_id: orderId,
    status: 'pending',
    patient_id: body.patient_id,
    practitioner_id: body.practitioner_id,
    refill_of: null,
  });
  return {
    orderId,
    order: [
      orderId,
      body.clinic_id,
      body.patient_id,
      body.practitioner_id,
      'pending',
      body.carrier_id,
      body.service_id,
      1299,
      0,
      now,
      now,
    ],
    prescription: [prescriptionId, body.clinic_id, orderId, now],
    item: [
      randomUUID(),
      prescriptionId,
      0,
      item.medication,
      item.dose,
      item.quantity,
      Number(item.refills ?? '0'),
      item.direction,
      item.days_supply ?? null,
    ],
    history: [randomUUID(), orderId, null, 'pending', 'partner', now],
    outbox: [randomUUID(), body.clinic_id, 'order.created', payload, now],
  };
}

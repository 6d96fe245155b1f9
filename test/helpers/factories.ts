/**
 * Typed factories that build test data through the HTTP API, as a partner (or the pharmacy, for
 * formulas, fills, holds and shipments) would. Each returns the view the API answers, typed by its
 * schema (the TypeBox types the OpenAPI document is made from), and throws with the response body
 * when the API refuses, so a broken setup fails loudly.
 */
import type { OperatorOrderDetailData } from '../../src/fulfillment/order-operator-detail.schemas.js';
import type { OrderViewData } from '../../src/fulfillment/order-view.schemas.js';
import type { FillItemInput } from '../../src/compounding/order-fill.schemas.js';
import type { HoldBodyInput } from '../../src/holds/hold.schemas.js';
import type { AddMedicationBody, MedicationView } from '../../src/medications/medication.schemas.js';
import type { OrderStatus } from '../../src/orders/order-status.js';
import type { AddShipmentBodyInput } from '../../src/shipments/shipment.schemas.js';
import { patientBody, practitionerBody, veterinarianBody } from './fixtures.js';
import type { Reply, TestApp, TestClinic } from './test-app.js';

/** The formulary every order test clinic starts with. */
export const TEST_FORMULARY = ['Semaglutide', 'Tirzepatide', 'Progesterone', 'Gabapentin'];

/** The answer's `data` (typed `T` by the caller that knows the route); throws with the body unless the answer is a 200. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names its route's view; `any` for the untyped callers.
export function expectOk<T = any>(res: Reply, what: string): T {
  if (res.status !== 200) throw new Error(`${what} failed with ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data as T;
}

export async function createPractitioner(
  t: TestApp,
  clinic: TestClinic,
  options: { veterinarian?: boolean; overrides?: Record<string, unknown> } = {},
): Promise<string> {
  const body = options.veterinarian
    ? veterinarianBody(clinic.clinicId, options.overrides)
    : practitionerBody(clinic.clinicId, options.overrides);
  return expectOk(await t.partner(clinic.apiKey).post('/api/external/practitioner', body), 'create practitioner').practitioner_id;
}

export async function createPatient(
  t: TestApp,
  clinic: TestClinic,
  options: { practitionerId?: string; species?: string; overrides?: Record<string, unknown> } = {},
): Promise<string> {
  const body = patientBody(clinic.clinicId, {
    ...(options.practitionerId ? { practitioner_id: options.practitionerId } : {}),
    ...(options.species ? { species: options.species } : {}),
    ...options.overrides,
  });
  return expectOk(await t.partner(clinic.apiKey).post('/api/external/patient', body), 'create patient').patient_id;
}

/** One medication item of the spec's shape. */
export function itemBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    medication: 'Semaglutide',
    dose: '0.25mg',
    quantity: 1,
    refills: '2',
    direction: 'Inject 0.25 mg subcutaneously once weekly',
    days_supply: 28,
    ...overrides,
  };
}

export interface OrderSetup {
  clinic: TestClinic;
  practitionerId: string;
  patientId: string;
}

/** A clinic with its formulary, a practitioner and a patient (human by default, or a vet and a dog). */
export async function createOrderSetup(
  t: TestApp,
  options: {
    freeShipping?: boolean;
    veterinary?: boolean;
    formulary?: string[];
    clinicName?: string;
    /** Fields of the patient's body (fixtures.ts patientBody) to replace. */
    patient?: Record<string, unknown>;
  } = {},
): Promise<OrderSetup> {
  const clinic = await t.createClinic({
    freeShipping: options.freeShipping ?? false,
    formulary: options.formulary ?? TEST_FORMULARY,
    ...(options.clinicName ? { name: options.clinicName } : {}),
  });
  const practitionerId = await createPractitioner(t, clinic, { veterinarian: options.veterinary ?? false });
  const patientId = await createPatient(t, clinic, {
    practitionerId,
    ...(options.veterinary ? { species: 'canine' } : {}),
    ...(options.patient ? { overrides: options.patient } : {}),
  });
  return { clinic, practitionerId, patientId };
}

/** What an order's body names: the clinic, its practitioner and its patient. */
export type OrderParties = Pick<OrderSetup, 'practitionerId' | 'patientId'> & {
  clinic: Pick<TestClinic, 'clinicId'>;
};

/** A valid POST /api/external/medication-order body for the setup, overridable field by field. */
export function orderBody(setup: OrderParties, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    patient_id: setup.patientId,
    practitioner_id: setup.practitionerId,
    clinic_id: setup.clinic.clinicId,
    carrier_id: 'fedex',
    service_id: 'fedex_ground',
    medication_requests: [itemBody()],
    ...overrides,
  };
}

export async function createOrder(t: TestApp, setup: OrderSetup, overrides: Record<string, unknown> = {}): Promise<string> {
  return expectOk(
    await t.partner(setup.clinic.apiKey).post('/api/external/medication-order', orderBody(setup, overrides)),
    'create order',
  ).medication_request_id;
}

/** Moves an order through the sandbox (to its next status, or to `to` through the legal path). */
export async function advanceOrder(t: TestApp, clinic: TestClinic, orderId: string, to?: OrderStatus): Promise<any> {
  return expectOk(
    await t.partner(clinic.apiKey).post(`/api/external/sandbox/medication-order/${orderId}/advance`, to ? { to } : {}),
    `advance order to ${to ?? 'next'}`,
  );
}

export async function getOrder(t: TestApp, clinic: TestClinic, orderId: string): Promise<any> {
  return expectOk(await t.partner(clinic.apiKey).get(`/api/external/medication-order/${orderId}`), 'get order');
}

export async function requestRefill(
  t: TestApp,
  clinic: TestClinic,
  orderId: string,
): Promise<{ refill_request_id: string; medication_order_id: string }> {
  return expectOk(
    await t.partner(clinic.apiKey).post('/api/external/refill-request', { medication_request_id: orderId }),
    'request refill',
  );
}

/** The outbox rows of one order, oldest first, payloads parsed. */
export async function outboxEventsOf(t: TestApp, orderId: string): Promise<{ type: string; payload: any; clinic_id: string }[]> {
  const rows = await t.ctx.db.selectFrom('outbox_events').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows
    .map((r) => ({ type: r.type, clinic_id: r.clinic_id, payload: JSON.parse(r.payload) as Record<string, unknown> }))
    .filter((e) => e.payload.medication_request_id === orderId);
}

/** A formulary entry's formula (docs/compounding.md): a non-sterile cream, one active ingredient and its base. */
export const FORMULA = {
  ingredients: [
    { name: 'Progesterone micronized', strength: '100', unit: 'mg/g', active: true },
    { name: 'Cream base', strength: '1', unit: 'g', active: false },
  ],
  preparation: 'non_sterile',
  bud_category: 'non_aqueous',
  storage: 'room',
} as const satisfies Partial<AddMedicationBody>;

/** A formulary entry named `name` with FORMULA, each field of which `formula` may replace (POST …/clinics/:clinicId/medications). */
export async function createFormula(
  t: TestApp,
  clinic: Pick<TestClinic, 'clinicId'>,
  name: string,
  formula: Partial<Omit<AddMedicationBody, 'name'>> = {},
): Promise<MedicationView> {
  const body = { name, ...FORMULA, ...formula };
  return expectOk<MedicationView>(
    await t.operator.post(`/api/admin/clinics/${clinic.clinicId}/medications`, body),
    `add ${name}`,
  );
}

/** The parties with a patient of their own: a second active order of one formula for one patient is held at intake as duplicate therapy. */
export async function ownPatient<T extends OrderParties & { clinic: TestClinic }>(t: TestApp, parties: T): Promise<T> {
  return { ...parties, patientId: await createPatient(t, parties.clinic, { practitionerId: parties.practitionerId }) };
}

/** Moves an order as the pharmacy does (POST …/status); `body` carries the status and what it needs (a tracking number to ship). */
export async function setOrderStatus(
  t: TestApp,
  orderId: string,
  body: { status: OrderStatus } & Record<string, unknown>,
): Promise<OperatorOrderDetailData> {
  return expectOk<OperatorOrderDetailData>(
    await t.operator.post(`/api/admin/medication-requests/${orderId}/status`, body),
    `move to ${body.status}`,
  );
}

/** Fills items of a `processing` order (POST …/fill): each item named, with a lot and compounded now unless given. */
export async function createFill(
  t: TestApp,
  orderId: string,
  items: (Pick<FillItemInput, 'item_id'> & Partial<FillItemInput>)[],
): Promise<OperatorOrderDetailData> {
  const body = {
    items: items.map((item, i) => ({ lot_number: `LOT-${String(i + 1)}`, compounded_at: t.ctx.clock().toISOString(), ...item })),
  };
  return expectOk<OperatorOrderDetailData>(await t.operator.post(`/api/admin/medication-requests/${orderId}/fill`, body), 'fill');
}

/** Holds an order as the pharmacy (POST …/hold): a dose to clarify, waiting on the partner, unless `body` says otherwise. */
export async function createHold(t: TestApp, orderId: string, body: Partial<HoldBodyInput> = {}): Promise<OrderViewData> {
  const hold = { reason_code: 'prescription_clarification', message: 'Please confirm the dose.', ...body };
  return expectOk<OrderViewData>(await t.operator.post(`/api/admin/medication-requests/${orderId}/hold`, hold), 'hold');
}

/** A shipped order's next package (POST …/shipments): a FedEx tracking number unless `body` gives one. */
export async function createShipment(
  t: TestApp,
  orderId: string,
  body: Partial<AddShipmentBodyInput> = {},
): Promise<OrderViewData> {
  const shipment = { tracking_number: '123456789013', ...body };
  return expectOk<OrderViewData>(
    await t.operator.post(`/api/admin/medication-requests/${orderId}/shipments`, shipment),
    'add shipment',
  );
}

/**
 * An order of the setup (with a patient of its own), moved to `processing`, every item filled
 * when `fill` is set (needed for a formula's item in production), then shipped with a FedEx
 * tracking number; the order as the partner reads it.
 */
export async function createShippedOrder(
  t: TestApp,
  setup: OrderSetup,
  options: { order?: Record<string, unknown>; fill?: boolean; trackingNumber?: string } = {},
): Promise<OrderViewData> {
  const orderId = await createOrder(t, await ownPatient(t, setup), options.order ?? {});
  const processing = await setOrderStatus(t, orderId, { status: 'processing' });
  if (options.fill)
    await createFill(
      t,
      orderId,
      processing.medication_requests.map((item) => ({ item_id: item.id })),
    );
  await setOrderStatus(t, orderId, { status: 'shipped', tracking_number: options.trackingNumber ?? '123456789012' });
  return expectOk<OrderViewData>(
    await t.partner(setup.clinic.apiKey).get(`/api/external/medication-order/${orderId}`),
    'get order',
  );
}

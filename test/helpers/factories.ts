/**
 * Typed factories that build test data through the partner HTTP API, as a partner would.
 * Each throws with the response body when the API refuses, so a broken setup fails loudly.
 */
import type { OrderStatus } from '../../src/orders/order-status.js';
import { patientBody, practitionerBody, veterinarianBody } from './fixtures.js';
import type { Reply, TestApp, TestClinic } from './test-app.js';

/** The formulary every order test clinic starts with. */
export const TEST_FORMULARY = ['Semaglutide', 'Tirzepatide', 'Progesterone', 'Gabapentin'];

/** The answer's `data`; throws with the body unless the answer is a 200. */
export function expectOk(res: Reply, what: string): any {
  if (res.status !== 200) throw new Error(`${what} failed with ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
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

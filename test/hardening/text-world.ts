// Over 250 lines on purpose: one valid request of every partner and operator route with a text field, in one list the fuzz walks.
import { STATES_AND_DC } from '../../src/shipping/licensed-states.js';
import { encodeCursor } from '../../src/db/keyset-page.js';
import { encodeEventCursor } from '../../src/events/event-log.service.js';
import {
  advanceOrder,
  createOrder,
  createOrderSetup,
  expectOk,
  itemBody,
  orderBody,
  requestRefill,
  type OrderSetup,
} from '../helpers/factories.js';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import type { TestApp } from '../helpers/test-app.js';
import { registerEndpoint } from '../webhooks/support.js';
import { totpCode } from '../../src/accounts/totp.js';
import { createPortalWorld, PORTAL_BASES, type PortalWorld } from './text-world-portal.js';
import {
  anHourAgo,
  failedDelivery,
  freshAddress,
  freshClinic,
  clinicalHoldIn,
  heldOrderIn,
  orderIn,
  REFUSING_URL,
  unique,
} from './text-world-support.js';

/**
 * What the text fuzz sends its values into, on one database: a clinic with a practitioner, a
 * patient, orders, a refill, a webhook endpoint with deliveries, an operator's carrier, and a valid
 * request for every partner, operator and portal route with text fields (`BASES`), into which a fuzzed
 * value is put one field at a time.
 */
export interface TextWorld {
  t: TestApp;
  setup: OrderSetup;
  orderId: string;
  refillId: string;
  /** An endpoint of the setup's clinic at an address that refuses connections: test calls fail at once. */
  webhookId: string;
  /** A failed delivery of that endpoint (a test call's). */
  deliveryId: string;
  carrierId: string;
  serviceId: string;
  /** The second page of each operator and partner list, as the API returned it. */
  cursors: {
    orders: string;
    deliveries: string;
    endpoints: string;
    audit: string;
    formulary: string;
    partnerOrders: string;
    partnerDeliveries: string;
  };
  /** The partner portal's part: a developer of the setup's clinic signed in (text-world-portal.ts). */
  portal: PortalWorld;
}

/** A request as the fuzz sends it: path parameters and query values unencoded; the setup's key unless `apiKey` says. */
export interface ApiRequest {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  apiKey?: string;
  /** The client's address (default: inject's 127.0.0.1). */
  remoteAddress?: string;
  /** Headers that replace the area's credentials: a console or portal session's cookie and own origin. */
  headers?: Record<string, string>;
}

/** A valid request of a route; it may create what it changes (an order to cancel), so that every call finds the same state. */
export type BaseRequest = (world: TextWorld) => Promise<ApiRequest> | ApiRequest;

/** Builds a world through the partner and operator APIs (one per database; each fuzz call goes to every world). */
export async function createTextWorld(t: TestApp): Promise<TextWorld> {
  const setup = await createOrderSetup(t);
  const { clinic } = setup;
  const orderId = await createOrder(t, setup);
  const shipped = await createOrder(t, setup);
  await advanceOrder(t, clinic, shipped, 'shipped');
  const refill = await requestRefill(t, clinic, shipped);
  const { webhookId } = await registerEndpoint(t, clinic, REFUSING_URL);
  // A second endpoint, so that the endpoint list has a second page.
  await registerEndpoint(t, clinic, `${REFUSING_URL}/second`);
  const deliveryId = await failedDelivery(t, clinic, webhookId);
  await failedDelivery(t, clinic, webhookId);
  const carrierId = 'fuzz_carrier';
  const serviceId = 'fuzz_ground';
  expectOk(await t.operator.post('/api/admin/carriers', { id: carrierId, name: 'Fuzz Carrier' }), 'carrier');
  const service = { id: serviceId, name: 'Fuzz Ground', price: 9.99 };
  expectOk(await t.operator.post(`/api/admin/carriers/${carrierId}/services`, service), 'carrier service');
  const secondPage = async (list: string) =>
    expectOk(await t.operator.get(`/api/admin/${list}?clinic_id=${clinic.clinicId}&limit=1`), list).next_cursor as string;
  const partnerSecondPage = async (list: string) =>
    expectOk(await t.partner(clinic.apiKey).get(`/api/external/${list}${list.includes('?') ? '&' : '?'}limit=1`), list)
      .next_cursor as string;
  const cursors = {
    orders: await secondPage('medication-requests'),
    deliveries: await secondPage('webhook-deliveries'),
    endpoints: await secondPage('webhook-endpoints'),
    audit: await secondPage('audit-events'),
    formulary: await partnerSecondPage('medications'),
    partnerOrders: await partnerSecondPage(`medication-orders?patient_id=${setup.patientId}`),
    partnerDeliveries: await partnerSecondPage(`webhook/deliveries?webhook_id=${webhookId}`),
  };
  const portal = await createPortalWorld(t, setup, webhookId);
  return { t, setup, orderId, refillId: refill.refill_request_id, webhookId, deliveryId, carrierId, serviceId, cursors, portal };
}

/** A tracking event with every text field (docs/shipping.md#shipments-and-their-journey). */
const SHIPMENT_EVENT = {
  status: 'in_transit',
  occurred_at: '2026-01-02T10:00:00.000Z',
  location: 'Memphis, TN',
  description: 'Departed the facility',
  estimated_delivery_date: '2026-01-05',
};

/** A new shipped order of the setup's clinic and its first shipment. */
async function shipmentIn(w: TextWorld): Promise<{ id: string; shipmentId: string }> {
  const id = await orderIn(w, 'shipped');
  const order = expectOk(await w.t.partner(w.setup.clinic.apiKey).get(`/api/external/medication-order/${id}`), 'read order');
  return { id, shipmentId: order.shipments[0].shipment_id as string };
}

const STAFF_PASSWORD = 'fuzz passphrase 2026';

/** A whole formula (docs/compounding.md): the fuzz edits each of its text fields. */
const FUZZ_FORMULA = {
  ingredients: [{ name: 'Fuzzamycin sodium', strength: '2.5', unit: 'mg/mL', active: true }],
  preparation: 'non_sterile',
  bud_category: 'aqueous_preserved',
  storage: 'refrigerated',
  controlled_schedule: 'IV',
  beyond_use_days: 30,
  restricted_states: ['SC'],
};

/** A new pharmacist account (its email and id): for bases that sign in or disable. */
async function freshStaff(world: TextWorld): Promise<{ email: string; staffId: string }> {
  const email = `fuzz-${unique()}@pharmacy.example`;
  const created = await world.t.operator.post('/api/admin/staff', {
    email,
    name: 'Fuzz Staff',
    role: 'pharmacist',
    password: STAFF_PASSWORD,
  });
  return { email, staffId: expectOk(created, 'staff member').staff_id };
}

/** A new pharmacist signed in to the console: their id and the headers of the session (its cookie, its own origin). */
async function signedInStaff(world: TextWorld): Promise<{ staffId: string; headers: Record<string, string> }> {
  const { email, staffId } = await freshStaff(world);
  const origin = 'http://fuzz.console';
  const signedIn = await world.t.request('POST', '/api/admin/session', {
    headers: { host: 'fuzz.console', origin, 'content-type': 'application/json' },
    body: { email, password: STAFF_PASSWORD },
    remoteAddress: freshAddress(),
  });
  expectOk(signedIn, 'staff sign-in');
  const cookie = String(signedIn.headers['set-cookie']).split(';')[0] ?? '';
  return { staffId, headers: { host: 'fuzz.console', origin, cookie } };
}

/** A new portal user of the setup's clinic, invited (its id): for bases that re-invite or disable. */
async function freshPartnerUser(world: TextWorld): Promise<string> {
  const invited = await world.t.operator.post(`/api/admin/clinics/${world.setup.clinic.clinicId}/partner-users`, {
    email: `fuzz-${unique()}@clinic.example`,
    role: 'viewer',
  });
  return expectOk(invited, 'portal user').partner_user.partner_user_id;
}

/**
 * A new staff member signed in to the console with two-step sign-in started (`confirmed`: and on):
 * the headers of that session and a code its next check accepts (the next step's, within the window).
 */
async function staffWithTotp(world: TextWorld, confirmed: boolean): Promise<{ headers: Record<string, string>; code: string }> {
  const { headers } = await signedInStaff(world);
  const started = expectOk(
    await world.t.request('POST', '/api/admin/account/totp', {
      headers: { ...headers, 'content-type': 'application/json' },
      body: {},
    }),
    'TOTP enrollment',
  );
  const secret: string = started.secret;
  if (confirmed) {
    const confirm = await world.t.request('POST', '/api/admin/account/totp/confirm', {
      headers: { ...headers, 'content-type': 'application/json' },
      body: { code: totpCode(secret, new Date()) },
    });
    expectOk(confirm, 'TOTP confirmation');
  }
  return { headers, code: totpCode(secret, new Date(Date.now() + (confirmed ? 30_000 : 0))) };
}

/** Every partner, operator and portal route with text fields, by `METHOD /url`, with a valid request. */
export const BASES: Record<string, BaseRequest> = {
  // Partner routes.
  'POST /api/external/practitioner': (w) => ({ body: practitionerBody(w.setup.clinic.clinicId, { address_line_2: 'Suite 4' }) }),
  'GET /api/external/practitioner/:practitionerId': (w) => ({ params: { practitionerId: w.setup.practitionerId } }),
  'PUT /api/external/practitioner/:practitionerId/credentials': (w) => ({
    params: { practitionerId: w.setup.practitionerId },
    body: { dea_number: 'BL1234563', licenses: [{ state_code: 'TX', number: 'A123456', expires_on: '2030-06-30' }] },
  }),
  'POST /api/external/patient': (w) => ({
    body: patientBody(w.setup.clinic.clinicId, { practitioner_id: w.setup.practitionerId, middle_name: 'Brewster' }),
  }),
  'GET /api/external/patient/:patientId': (w) => ({ params: { patientId: w.setup.patientId } }),
  'PUT /api/external/patient/:patientId/allergies': (w) => ({
    params: { patientId: w.setup.patientId },
    body: { allergies: [{ substance: 'Penicillin', reaction: 'hives', severity: 'moderate' }], no_known_allergies: false },
  }),
  'GET /api/external/carriers/:carrierId/services': (w) => ({
    params: { carrierId: 'fedex' },
    query: { patientId: w.setup.patientId },
  }),
  'POST /api/external/medication-order': (w) => ({
    body: orderBody(w.setup, {
      shipment_group_id: 'group-7',
      medication_requests: [
        itemBody({
          unit_of_measure: 'mg',
          flavor: 'mint',
          notes: 'Keep refrigerated',
          reason_for_compounding: 'Allergy to a dye',
          reason_for_compounding_additional_context: 'Reacted to the commercial form',
        }),
      ],
    }),
  }),
  'GET /api/external/medication-order/:id': (w) => ({ params: { id: w.orderId } }),
  'POST /api/external/medication-order/:id/cancel': async (w) => ({ params: { id: await orderIn(w, 'pending') } }),
  'POST /api/external/refill-request': async (w) => ({
    body: { medication_request_id: await orderIn(w, 'shipped'), shipment_group_id: 'group-7' },
  }),
  'GET /api/external/refill-request/:id': (w) => ({ params: { id: w.refillId } }),
  'GET /api/external/medications': (w) => ({ query: { limit: '1', cursor: w.cursors.formulary } }),
  'GET /api/external/medication-orders': (w) => ({
    query: {
      status: 'pending',
      patient_id: w.setup.patientId,
      lot_number: '24-117',
      limit: '1',
      cursor: w.cursors.partnerOrders,
    },
  }),
  'GET /api/external/events': (w) => ({
    query: {
      type: 'order.created,order.delivered',
      limit: '1',
      // A position as the log's pages write it: the fuzz edits inside it.
      after: encodeEventCursor(w.setup.clinic.clinicId, { createdAt: '2026-11-25T00:00:00.000Z', id: w.orderId }),
    },
  }),
  'GET /api/external/requests': (w) => ({
    query: {
      status: '4xx',
      route: '/api/external/medication-order/:id',
      since: '2026-01-01T00:00:00.000Z',
      request_id: w.orderId,
      limit: '1',
      // A position as the log's pages write it (its rows' time and UUIDv7 id): the fuzz edits inside it.
      cursor: encodeCursor({ createdAt: '2026-11-25T00:00:00.000Z', id: w.orderId }),
    },
  }),
  'POST /api/external/medication-order/:id/hold-response': async (w) => ({
    params: { id: await heldOrderIn(w) },
    body: {
      message: 'Corrected with the patient.',
      address: { addressLine1: '20 Elm St', addressLine2: 'Apt 3', city: 'Sacramento', state: 'CA', postalCode: '95814' },
    },
  }),
  'POST /api/external/sandbox/medication-order/:id/hold': async (w) => ({
    params: { id: await orderIn(w, 'pending') },
    body: { reason_code: 'other', message: 'Please call the pharmacy.', waiting_on: 'partner' },
  }),
  'POST /api/external/sandbox/medication-order/:id/resume': async (w) => ({
    params: { id: await heldOrderIn(w) },
    body: { message: 'Resumed.' },
  }),
  'POST /api/external/sandbox/medication-order/:id/shipments/:shipmentId/events': async (w) => ({
    params: await shipmentIn(w),
    body: SHIPMENT_EVENT,
  }),
  'POST /api/external/sandbox/medication-order/:id/advance': async (w) => ({
    params: { id: await orderIn(w, 'pending') },
    body: { to: 'processing' },
  }),
  'POST /api/external/webhook': async (w) => {
    const clinic = await freshClinic(w);
    return { apiKey: clinic.apiKey, body: { clinic_id: clinic.clinicId, webhook_url: 'https://partner.example.com/hooks' } };
  },
  'GET /api/external/webhook': (w) => ({ query: { clinic_id: w.setup.clinic.clinicId } }),
  'DELETE /api/external/webhook': async (w) => {
    const clinic = await freshClinic(w);
    const { webhookId } = await registerEndpoint(w.t, clinic, REFUSING_URL);
    return { apiKey: clinic.apiKey, body: { clinic_id: clinic.clinicId, webhook_id: webhookId } };
  },
  'DELETE /api/external/webhook/:webhookId': async (w) => {
    const clinic = await freshClinic(w);
    const { webhookId } = await registerEndpoint(w.t, clinic, REFUSING_URL);
    return { apiKey: clinic.apiKey, params: { webhookId } };
  },
  'PATCH /api/external/webhook/:webhookId': (w) => ({
    params: { webhookId: w.webhookId },
    body: { max_in_flight: 5, max_per_second: null },
  }),
  'POST /api/external/webhook/:webhookId/rotate-secret': (w) => ({
    params: { webhookId: w.webhookId },
    body: { previous_valid_hours: 1 },
  }),
  'GET /api/external/webhook/deliveries': (w) => ({
    query: {
      webhook_id: w.webhookId,
      status: 'failed',
      event_type: 'webhook.test',
      limit: '1',
      cursor: w.cursors.partnerDeliveries,
    },
  }),
  'POST /api/external/webhook/test': (w) => ({ body: { clinic_id: w.setup.clinic.clinicId, webhook_id: w.webhookId } }),
  'POST /api/external/webhook/recover': (w) => ({
    body: { clinic_id: w.setup.clinic.clinicId, webhook_id: w.webhookId, since: anHourAgo() },
  }),

  // Operator routes.
  'GET /api/admin/medication-requests': (w) => ({
    query: {
      q: 'Grace',
      status: 'pending',
      clinic_id: w.setup.clinic.clinicId,
      carrier_id: 'fedex',
      created_from: '2020-01-01',
      created_to: '2100-12-31',
      medication_request_id: w.orderId,
      sort: 'waiting',
      limit: '1',
      // The queue's own cursor (sort=waiting): text-targets.ts edits the position inside it too.
      cursor: w.cursors.orders,
    },
  }),
  'GET /api/admin/holds': (w) => ({
    query: {
      waiting_on: 'partner',
      reason_code: 'address_undeliverable',
      limit: '1',
      // A position as the holds' pages write it (a hold's time and its order's id): the fuzz edits inside it.
      cursor: encodeCursor({ createdAt: '2026-11-25T00:00:00.000Z', id: w.orderId }),
    },
  }),
  'GET /api/admin/lots/:lot_number/orders': (w) => ({
    params: { lot_number: '24-117' },
    query: {
      limit: '1',
      // A position as the recall's pages write it (an order's time and an item's id): the fuzz edits inside it.
      cursor: encodeCursor({ createdAt: '2026-11-25T00:00:00.000Z', id: w.orderId }),
    },
  }),
  'GET /api/admin/medication-requests/:id': (w) => ({ params: { id: w.orderId } }),
  'POST /api/admin/medication-requests/:id/status': async (w) => ({
    params: { id: await orderIn(w, 'processing') },
    body: { status: 'shipped', tracking_number: '794612345678' },
  }),
  'POST /api/admin/medication-requests/:id/fill': async (w) => {
    const id = await orderIn(w, 'processing');
    const order = expectOk(await w.t.partner(w.setup.clinic.apiKey).get(`/api/external/medication-order/${id}`), 'read order');
    return {
      params: { id },
      body: {
        items: [
          {
            item_id: order.medication_requests[0].id,
            lot_number: '24-117',
            compounded_at: '2026-01-02T10:00:00.000Z',
            ingredient_lots: [{ ingredient: 'Semaglutide sodium', lot_number: 'SEM-1', expires_on: '2027-01-31' }],
          },
        ],
      },
    };
  },
  'POST /api/admin/medication-requests/:id/hold': async (w) => ({
    params: { id: await orderIn(w, 'pending') },
    body: { reason_code: 'other', message: 'Please call the pharmacy.', waiting_on: 'pharmacy' },
  }),
  // Only the pharmacist signed in as themselves signs (issue 39): the session's, naming themselves.
  'POST /api/admin/medication-requests/:id/signoffs': async (w) => {
    const { staffId, headers } = await signedInStaff(w);
    return {
      params: { id: await orderIn(w, 'pending') },
      headers,
      body: { kind: 'prescription_review', checked: ['allergies', 'duplicate_therapy', 'dose'], pharmacist_id: staffId },
    };
  },
  'POST /api/admin/medication-requests/:id/shipments': async (w) => ({
    params: { id: await orderIn(w, 'shipped') },
    body: { tracking_number: '794612345678', carrier_id: 'fedex', service_id: 'fedex_ground' },
  }),
  'POST /api/admin/medication-requests/:id/shipments/:shipmentId/events': async (w) => ({
    params: await shipmentIn(w),
    body: SHIPMENT_EVENT,
  }),
  'POST /api/admin/medication-requests/:id/resume': async (w) => ({
    params: { id: await heldOrderIn(w) },
    body: { message: 'Resumed.' },
  }),
  // A clinical hold: only the pharmacist signed in as themselves overrides it, with a reason (issue 39).
  'POST /api/admin/medication-requests/:id/holds/:hold_id/resolve': async (w) => {
    const { headers } = await signedInStaff(w);
    return {
      params: await clinicalHoldIn(w),
      headers,
      body: { message: 'Reviewed.', override_reason: 'The prescriber confirmed the reaction was a rash years ago.' },
    };
  },
  'POST /api/admin/clinics': () => ({ body: { name: 'Fuzz Clinic' } }),
  'GET /api/admin/clinics/:clinicId': (w) => ({ params: { clinicId: w.setup.clinic.clinicId } }),
  'PUT /api/admin/clinics/:clinicId/shipping': (w) => ({
    params: { clinicId: w.setup.clinic.clinicId },
    body: { free_shipping: false },
  }),
  'POST /api/admin/clinics/:clinicId/api-keys': (w) => ({
    params: { clinicId: w.setup.clinic.clinicId },
    body: { environment: 'development' },
  }),
  'GET /api/admin/clinics/:clinicId/api-keys': (w) => ({ params: { clinicId: w.setup.clinic.clinicId } }),
  'DELETE /api/admin/api-keys/:apiKeyId': async (w) => ({ params: { apiKeyId: (await freshClinic(w)).apiKeyId } }),
  // A fresh clinic's key: rolling the shared fixture's key would expire it under the other cases.
  'POST /api/admin/api-keys/:apiKeyId/roll': async (w) => ({
    params: { apiKeyId: (await freshClinic(w)).apiKeyId },
    body: { expires_in_seconds: 3600 },
  }),
  'POST /api/admin/clinics/:clinicId/oauth-clients': (w) => ({
    params: { clinicId: w.setup.clinic.clinicId },
    body: { scopes: ['orders:read', 'carriers:read'], environment: 'development' },
  }),
  'GET /api/admin/clinics/:clinicId/oauth-clients': (w) => ({ params: { clinicId: w.setup.clinic.clinicId } }),
  'DELETE /api/admin/oauth-clients/:clientId': async (w) => {
    const created = await w.t.operator.post(`/api/admin/clinics/${w.setup.clinic.clinicId}/oauth-clients`, {
      scopes: ['orders:read'],
    });
    return { params: { clientId: expectOk(created, 'OAuth client').client_id } };
  },
  'POST /api/admin/clinics/:clinicId/medications': (w) => ({
    params: { clinicId: w.setup.clinic.clinicId },
    body: { name: `Fuzzamycin ${unique()}`, strength: '2.5 mg/mL', dosage_form: 'injectable solution', ...FUZZ_FORMULA },
  }),
  'PATCH /api/admin/clinics/:clinicId/medications/:medicationId': async (w) => {
    const clinicId = w.setup.clinic.clinicId;
    const added = await w.t.operator.post(`/api/admin/clinics/${clinicId}/medications`, { name: `Fuzzamycin ${unique()}` });
    const medication = expectOk(added, 'medication');
    return {
      params: { clinicId, medicationId: medication.medication_id },
      body: { name: `Fuzzamycin ${unique()}`, strength: '5 mg/mL', dosage_form: 'injectable solution', ...FUZZ_FORMULA },
    };
  },
  'GET /api/admin/clinics/:clinicId/medications': (w) => ({ params: { clinicId: w.setup.clinic.clinicId } }),
  'GET /api/admin/clinics/:clinicId/medications/:medicationId/formula-versions': async (w) => {
    const clinicId = w.setup.clinic.clinicId;
    const added = await w.t.operator.post(`/api/admin/clinics/${clinicId}/medications`, {
      name: `Fuzzamycin ${unique()}`,
      ...FUZZ_FORMULA,
    });
    return { params: { clinicId, medicationId: expectOk(added, 'medication').medication_id } };
  },
  'DELETE /api/admin/clinics/:clinicId/medications/:medicationId': async (w) => {
    const clinicId = w.setup.clinic.clinicId;
    const added = await w.t.operator.post(`/api/admin/clinics/${clinicId}/medications`, { name: `Fuzzamycin ${unique()}` });
    const medication = expectOk(added, 'medication');
    return { params: { clinicId, medicationId: medication.medication_id } };
  },
  'POST /api/admin/carriers': () => ({ body: { id: `fuzz_${unique()}`, name: 'Fuzz Express' } }),
  'POST /api/admin/carriers/:carrierId/services': (w) => ({
    params: { carrierId: w.carrierId },
    body: { id: `fuzz_${unique()}`, name: 'Fuzz Overnight', price: 19.99, state_prices: { AK: 29.99 } },
  }),
  'PUT /api/admin/carriers/:carrierId/services/:serviceId': (w) => ({
    params: { carrierId: w.carrierId, serviceId: w.serviceId },
    body: { name: 'Fuzz Ground', state_prices: { HI: 24.99 } },
  }),
  'PUT /api/admin/licensed-states': () => ({ body: { states: [...STATES_AND_DC] } }),
  'PUT /api/admin/allergy-classes/:code': () => ({
    params: { code: `fuzz_${unique()}` },
    body: { label: 'Fuzz class', names: ['fuzzamycins'], members: ['fuzzamycin'] },
  }),
  'DELETE /api/admin/allergy-classes/:code': async (w) => {
    const code = `fuzz_${unique()}`;
    const set = await w.t.operator.put(`/api/admin/allergy-classes/${code}`, {
      label: 'Fuzz class',
      names: ['fuzzamycins'],
      members: ['fuzzamycin'],
    });
    expectOk(set, 'allergy class');
    return { params: { code } };
  },
  'GET /api/admin/webhook-deliveries': (w) => ({
    query: {
      status: 'failed',
      clinic_id: w.setup.clinic.clinicId,
      event_type: 'webhook.test',
      webhook_id: w.webhookId,
      limit: '1',
      cursor: w.cursors.deliveries,
    },
  }),
  'GET /api/admin/webhook-deliveries/:id': (w) => ({ params: { id: w.deliveryId } }),
  'POST /api/admin/webhook-deliveries/:id/retry': async (w) => ({
    params: { id: await failedDelivery(w.t, w.setup.clinic, w.webhookId) },
  }),
  'GET /api/admin/webhook-endpoints': (w) => ({
    query: { clinic_id: w.setup.clinic.clinicId, status: 'active', limit: '1', cursor: w.cursors.endpoints },
  }),
  'POST /api/admin/webhook-endpoints/:id/enable': (w) => ({ params: { id: w.webhookId } }),
  'POST /api/admin/webhook-endpoints/:webhookId/recover': (w) => ({
    params: { webhookId: w.webhookId },
    body: { since: anHourAgo() },
  }),
  'POST /api/admin/staff': () => ({
    body: { email: `fuzz-${unique()}@pharmacy.example`, name: 'Fuzz Staff', role: 'pharmacist', password: STAFF_PASSWORD },
  }),
  'POST /api/admin/staff/:staffId/disable': async (w) => ({ params: { staffId: (await freshStaff(w)).staffId } }),
  'POST /api/admin/clinics/:clinicId/partner-users': (w) => ({
    params: { clinicId: w.setup.clinic.clinicId },
    body: { email: `fuzz-${unique()}@clinic.example`, role: 'viewer' },
  }),
  'GET /api/admin/clinics/:clinicId/partner-users': (w) => ({ params: { clinicId: w.setup.clinic.clinicId } }),
  'POST /api/admin/partner-users/:partnerUserId/invitation': async (w) => ({
    params: { partnerUserId: await freshPartnerUser(w) },
  }),
  'POST /api/admin/partner-users/:partnerUserId/disable': async (w) => ({
    params: { partnerUserId: await freshPartnerUser(w) },
  }),
  'POST /api/admin/account/totp/confirm': async (w) => {
    const { headers, code } = await staffWithTotp(w, false);
    return { headers, body: { code } };
  },
  'DELETE /api/admin/account/totp': async (w) => {
    const { headers, code } = await staffWithTotp(w, true);
    return { headers, body: { code } };
  },
  // Each sign-in from an address of its own (text-world-support.ts, freshAddress).
  'POST /api/admin/session': async (w) => ({
    body: { email: (await freshStaff(w)).email, password: STAFF_PASSWORD },
    remoteAddress: freshAddress(),
  }),
  'GET /api/admin/audit-events': (w) => ({
    query: {
      actor_id: w.setup.clinic.apiKeyId,
      resource_id: w.orderId,
      clinic_id: w.setup.clinic.clinicId,
      action: 'create',
      limit: '1',
      cursor: w.cursors.audit,
    },
  }),

  // Partner portal routes.
  ...PORTAL_BASES,
};

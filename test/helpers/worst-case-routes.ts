import { expect } from 'vitest';
import { MAX_DETAILS } from '../../src/contracts/validation.js';
import { itemBody, orderBody, TEST_FORMULARY, type OrderSetup } from './factories.js';
import { patientBody, practitionerBody } from './fixtures.js';
import { OPERATOR_TOKEN } from './test-app.js';
import { STATES_AND_DC } from '../../src/shipping/licensed-states.js';
import { worstCasesOf, type BaseRequest, type RouteInput, type SchemaNode, type WorstCase } from './worst-cases.js';

/**
 * The worst cases of every partner, operator and portal route that takes a body or a query string, read
 * from the OpenAPI document (so that a new route is covered as soon as it is registered), each
 * route starting from a valid request of BASE_REQUESTS. Shared by the main suite (in-process, size
 * and shape of every answer) and the fault suite (a real server, time of every answer).
 */

/** Every answer to a worst case is smaller than this (issue 9, item 1). */
export const MAX_ANSWER_BYTES = 16 * 1024;

export interface RawAnswer {
  status: number;
  body: string;
  /** The answer's headers (the fixture reads the portal's session cookie in them). */
  headers?: Record<string, unknown>;
}

/** One request over some transport (`inject`, or HTTP to a server process); the answer as text. */
export type SendRaw = (request: {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}) => Promise<RawAnswer>;

/**
 * What the base requests refer to: a clinic ready to order (key, formulary, practitioner, patient),
 * one order, and a developer of the clinic signed in to the portal (the headers of the session).
 */
export interface WorstCaseFixture extends OrderSetup {
  orderId: string;
  /** The clinic's formulary entry (TEST_FORMULARY[0]), for the routes that change one. */
  medicationId: string;
  portalHeaders: Record<string, string>;
}

export interface InputRoute extends RouteInput {
  area: Area;
}

type Area = 'partner' | 'admin' | 'portal';

const AREAS: [prefix: string, area: Area][] = [
  ['/api/external/', 'partner'],
  ['/api/admin/', 'admin'],
  ['/api/portal/', 'portal'],
];

/** What is read of an OpenAPI operation. */
interface Operation {
  requestBody?: { content?: Record<string, { schema?: SchemaNode }> };
  parameters?: { in: string; name: string; schema: SchemaNode }[];
}

/** The partner, operator and portal routes of an OpenAPI document that take a JSON body or query parameters. */
export function inputRoutesOf(document: {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
}): InputRoute[] {
  const routes: InputRoute[] = [];
  // Named bodies are `$ref`s to components: the worst cases are built from the schemas themselves.
  const components = document.components?.schemas ?? {};
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    const named = typeof $ref === 'string' ? components[$ref.replace('#/components/schemas/', '')] : undefined;
    return Object.fromEntries(
      Object.entries({ ...(named as object | undefined), ...rest }).map(([key, value]) => [key, inline(value)]),
    );
  };
  for (const [path, operations] of Object.entries(document.paths)) {
    const area = AREAS.find(([prefix]) => path.startsWith(prefix))?.[1];
    if (!area) continue;
    for (const [method, operation] of Object.entries(operations)) {
      const named = operation.requestBody?.content?.['application/json']?.schema;
      const body = named ? (inline(named) as SchemaNode) : undefined;
      const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
      if (!body && query.length === 0) continue;
      routes.push({
        key: `${method.toUpperCase()} ${path}`,
        area,
        ...(body ? { body } : {}),
        ...(query.length > 0 ? { query: Object.fromEntries(query.map((parameter) => [parameter.name, parameter.schema])) } : {}),
      });
    }
  }
  return routes;
}

/** A webhook endpoint that does not exist: a valid id, and nothing is ever delivered anywhere. */
const NO_WEBHOOK = '00000000-0000-4000-8000-000000000000';

/** A tracking event with every text field (docs/shipping.md#shipments-and-their-journey). */
const SHIPMENT_EVENT = {
  status: 'in_transit',
  occurred_at: '2026-01-02T10:00:00.000Z',
  location: 'Memphis, TN',
  description: 'Departed the facility',
  estimated_delivery_date: '2026-01-05',
};
/** A target the server refuses (loopback): the body is valid, and no worst case registers a webhook. */
const REFUSED_WEBHOOK_URL = 'http://127.0.0.1:9/worst-case';
/** A whole formula (docs/compounding.md), so that the worst cases reach each of its fields. */
const FORMULA = {
  ingredients: [
    { name: 'Tirzepatide', strength: '2.5', unit: 'mg/mL', active: true },
    { name: 'Benzyl alcohol', strength: '0.9', unit: '%', active: false },
  ],
  preparation: 'sterile',
  bud_category: 'aqueous_preserved',
  storage: 'refrigerated',
  controlled_schedule: null,
  beyond_use_days: 28,
  restricted_states: ['AL', 'SC'],
};
/** A prescriber's state licences (docs/practitioners-and-patients.md#credentials), to reach each field. */
const LICENSES = [
  { state_code: 'TX', number: 'A123456', expires_on: '2030-06-30' },
  { state_code: 'CA', number: 'G98765', expires_on: '2029-01-31' },
];
const anHourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
const inAMonth = () => new Date(Date.now() + 30 * 24 * 3_600_000).toISOString();

/**
 * A valid request of every route that takes a body or query string, keyed `METHOD /openapi/path`.
 * A route missing here fails the main suite's coverage test.
 */
export const BASE_REQUESTS: Record<string, (f: WorstCaseFixture) => BaseRequest> = {
  'POST /api/external/practitioner': (f) =>
    post('/api/external/practitioner', practitionerBody(f.clinic.clinicId, { dea_number: 'BL1234563', licenses: LICENSES })),
  'PUT /api/external/practitioner/{practitionerId}/credentials': (f) => ({
    method: 'PUT',
    url: `/api/external/practitioner/${f.practitionerId}/credentials`,
    body: { dea_number: 'BL1234563', licenses: LICENSES },
  }),
  'POST /api/external/patient': (f) =>
    post('/api/external/patient', patientBody(f.clinic.clinicId, { practitioner_id: f.practitionerId, middle_name: 'May' })),
  'PUT /api/external/patient/{patientId}/allergies': (f) => ({
    method: 'PUT',
    url: `/api/external/patient/${f.patientId}/allergies`,
    body: { allergies: [{ substance: 'Penicillin', reaction: 'hives', severity: 'moderate' }], no_known_allergies: false },
  }),
  'GET /api/external/carriers/{carrierId}/services': (f) => get(`/api/external/carriers/fedex/services?patientId=${f.patientId}`),
  'POST /api/external/medication-order': (f) =>
    post('/api/external/medication-order', orderBody(f, { medication_requests: [itemBody({ notes: 'Keep cold' })] })),
  'POST /api/external/refill-request': (f) => post('/api/external/refill-request', { medication_request_id: f.orderId }),
  'POST /api/external/sandbox/medication-order/{id}/advance': (f) =>
    post(`/api/external/sandbox/medication-order/${f.orderId}/advance`, { to: 'processing' }),
  'POST /api/external/sandbox/medication-order/{id}/hold': (f) =>
    post(`/api/external/sandbox/medication-order/${f.orderId}/hold`, {
      reason_code: 'other',
      message: 'Please call the pharmacy.',
      waiting_on: 'partner',
    }),
  'POST /api/external/sandbox/medication-order/{id}/shipments/{shipmentId}/events': (f) =>
    post(`/api/external/sandbox/medication-order/${f.orderId}/shipments/${NO_WEBHOOK}/events`, SHIPMENT_EVENT),
  'POST /api/external/sandbox/medication-order/{id}/resume': (f) =>
    post(`/api/external/sandbox/medication-order/${f.orderId}/resume`, { message: 'Resumed.' }),
  'POST /api/external/medication-order/{id}/hold-response': (f) =>
    post(`/api/external/medication-order/${f.orderId}/hold-response`, {
      message: 'Corrected address attached.',
      address: { addressLine1: '2 Elm St', addressLine2: 'Apt 3', city: 'Sacramento', state: 'CA', postalCode: '95814' },
      cancel: false,
    }),
  'POST /api/external/webhook': (f) =>
    post('/api/external/webhook', { clinic_id: f.clinic.clinicId, webhook_url: REFUSED_WEBHOOK_URL }),
  'GET /api/external/webhook': (f) => get(`/api/external/webhook?clinic_id=${f.clinic.clinicId}`),
  'DELETE /api/external/webhook': (f) => ({
    method: 'DELETE',
    url: '/api/external/webhook',
    body: { clinic_id: f.clinic.clinicId, webhook_id: NO_WEBHOOK },
  }),
  'PATCH /api/external/webhook/{webhookId}': () => ({
    method: 'PATCH',
    url: `/api/external/webhook/${NO_WEBHOOK}`,
    body: { max_in_flight: 5, max_per_second: 20 },
  }),
  'POST /api/external/webhook/{webhookId}/rotate-secret': () =>
    post(`/api/external/webhook/${NO_WEBHOOK}/rotate-secret`, { previous_valid_hours: 1 }),
  'GET /api/external/webhook/deliveries': () =>
    get(`/api/external/webhook/deliveries?webhook_id=${NO_WEBHOOK}&status=failed&event_type=order.created&limit=10`),
  'GET /api/external/medications': () => get('/api/external/medications?limit=10'),
  'GET /api/external/events': () => get('/api/external/events?type=order.created,order.delivered&limit=100'),
  'GET /api/external/requests': () =>
    get('/api/external/requests?status=4xx&route=/api/external/medication-order/:id&since=2026-01-01T00:00:00.000Z&limit=10'),
  'GET /api/external/medication-orders': (f) =>
    get(`/api/external/medication-orders?status=pending&patient_id=${f.patientId}&lot_number=24-117&limit=10`),
  'POST /api/external/webhook/test': (f) =>
    post('/api/external/webhook/test', { clinic_id: f.clinic.clinicId, webhook_id: NO_WEBHOOK }),
  'POST /api/external/webhook/recover': (f) =>
    post('/api/external/webhook/recover', { clinic_id: f.clinic.clinicId, webhook_id: NO_WEBHOOK, since: anHourAgo() }),
  'GET /api/admin/medication-requests': (f) =>
    get(
      `/api/admin/medication-requests?status=pending&clinic_id=${f.clinic.clinicId}&medication_request_id=${f.orderId}&limit=10`,
    ),
  'POST /api/admin/medication-requests/{id}/status': (f) =>
    post(`/api/admin/medication-requests/${f.orderId}/status`, { status: 'processing', tracking_number: '1Z999AA10123456784' }),
  'GET /api/admin/holds': () => get('/api/admin/holds?waiting_on=partner&reason_code=other&limit=10'),
  'GET /api/admin/lots/{lot_number}/orders': () => get('/api/admin/lots/24-117/orders?limit=10'),
  'POST /api/admin/medication-requests/{id}/fill': (f) =>
    post(`/api/admin/medication-requests/${f.orderId}/fill`, {
      items: [
        {
          item_id: '00000000-0000-4000-8000-000000000000',
          lot_number: '24-117',
          compounded_at: '2026-01-02T10:00:00.000Z',
          ingredient_lots: [{ ingredient: 'Semaglutide sodium', lot_number: 'SEM-1', expires_on: '2027-01-31' }],
        },
      ],
    }),
  'POST /api/admin/medication-requests/{id}/hold': (f) =>
    post(`/api/admin/medication-requests/${f.orderId}/hold`, {
      reason_code: 'other',
      message: 'Please call the pharmacy.',
      waiting_on: 'pharmacy',
    }),
  // Sent with the operator token, which cannot sign (403 when the rest is valid; issue 39).
  'POST /api/admin/medication-requests/{id}/signoffs': (f) =>
    post(`/api/admin/medication-requests/${f.orderId}/signoffs`, {
      kind: 'prescription_review',
      checked: ['allergies', 'duplicate_therapy', 'dose'],
      pharmacist_id: NO_WEBHOOK,
    }),
  'POST /api/admin/medication-requests/{id}/shipments': (f) =>
    post(`/api/admin/medication-requests/${f.orderId}/shipments`, {
      tracking_number: '794612345678',
      carrier_id: 'fedex',
      service_id: 'fedex_ground',
    }),
  // The fixture's order has not shipped: a shipment id of none (404 when the rest is valid).
  'POST /api/admin/medication-requests/{id}/shipments/{shipmentId}/events': (f) =>
    post(`/api/admin/medication-requests/${f.orderId}/shipments/${NO_WEBHOOK}/events`, SHIPMENT_EVENT),
  'POST /api/admin/medication-requests/{id}/resume': (f) =>
    post(`/api/admin/medication-requests/${f.orderId}/resume`, { message: 'Resumed.' }),
  // A hold id of none (404 when the rest is valid).
  'POST /api/admin/medication-requests/{id}/holds/{hold_id}/resolve': (f) =>
    post(`/api/admin/medication-requests/${f.orderId}/holds/${NO_WEBHOOK}/resolve`, {
      message: 'Resolved.',
      override_reason: 'Reviewed with the prescriber.',
    }),
  'POST /api/admin/clinics': () => post('/api/admin/clinics', { name: 'Worst-case clinic', free_shipping: false }),
  'PUT /api/admin/clinics/{clinicId}/shipping': (f) => ({
    method: 'PUT',
    url: `/api/admin/clinics/${f.clinic.clinicId}/shipping`,
    body: { free_shipping: false },
  }),
  'POST /api/admin/clinics/{clinicId}/api-keys': (f) => post(`/api/admin/clinics/${f.clinic.clinicId}/api-keys`, {}),
  'POST /api/admin/clinics/{clinicId}/oauth-clients': (f) =>
    post(`/api/admin/clinics/${f.clinic.clinicId}/oauth-clients`, { scopes: ['orders:read', 'carriers:read'] }),
  // An unknown key (404 when valid): rolling the fixture's own key could expire it under the other cases.
  'POST /api/admin/api-keys/{apiKeyId}/roll': () => post(`/api/admin/api-keys/${NO_WEBHOOK}/roll`, { expires_in_seconds: 3600 }),
  'POST /api/admin/clinics/{clinicId}/medications': (f) =>
    post(`/api/admin/clinics/${f.clinic.clinicId}/medications`, {
      name: 'Tirzepatide',
      strength: '2.5 mg/mL',
      dosage_form: 'injection',
      ...FORMULA,
    }),
  'PATCH /api/admin/clinics/{clinicId}/medications/{medicationId}': (f) => ({
    method: 'PATCH',
    url: `/api/admin/clinics/${f.clinic.clinicId}/medications/${f.medicationId}`,
    body: { strength: '5 mg/mL', ...FORMULA },
  }),
  'POST /api/admin/carriers': () => post('/api/admin/carriers', { id: 'worst_case_carrier', name: 'Worst-case carrier' }),
  'POST /api/admin/carriers/{carrierId}/services': () =>
    post('/api/admin/carriers/fedex/services', {
      id: 'worst_case_service',
      name: 'Worst case',
      price: 100,
      state_prices: { AK: 200 },
    }),
  'PUT /api/admin/carriers/{carrierId}/services/{serviceId}': () => ({
    method: 'PUT',
    url: '/api/admin/carriers/fedex/services/fedex_2day',
    body: { name: 'FedEx 2Day®', price: 4595, state_prices: { AK: 7450, HI: 7450 } },
  }),
  'PUT /api/admin/allergy-classes/{code}': () => ({
    method: 'PUT',
    url: '/api/admin/allergy-classes/worst_case_class',
    body: {
      label: 'Worst case',
      names: Array.from({ length: 50 }, (_, i) => `worst case allergy ${i}`),
      members: Array.from({ length: 100 }, (_, i) => `worst case ingredient ${i}`),
    },
  }),
  'PUT /api/admin/licensed-states': () => ({
    method: 'PUT',
    url: '/api/admin/licensed-states',
    body: { states: [...STATES_AND_DC] },
  }),
  'GET /api/admin/webhook-deliveries': (f) =>
    get(
      `/api/admin/webhook-deliveries?status=failed&clinic_id=${f.clinic.clinicId}&event_type=order.created&webhook_id=${NO_WEBHOOK}&limit=10`,
    ),
  'GET /api/admin/webhook-endpoints': (f) =>
    get(`/api/admin/webhook-endpoints?clinic_id=${f.clinic.clinicId}&status=active&limit=10`),
  'POST /api/admin/webhook-endpoints/{id}/enable': () => ({
    method: 'POST',
    url: `/api/admin/webhook-endpoints/${NO_WEBHOOK}/enable?redeliver_failed=false`,
  }),
  'POST /api/admin/webhook-endpoints/{webhookId}/recover': () =>
    post(`/api/admin/webhook-endpoints/${NO_WEBHOOK}/recover`, { since: anHourAgo() }),
  'GET /api/admin/audit-events': (f) =>
    get(
      `/api/admin/audit-events?resource_id=${f.patientId}&clinic_id=${f.clinic.clinicId}&action=create&actor_id=${f.clinic.apiKeyId}&limit=10`,
    ),
  'POST /api/admin/staff': () =>
    post('/api/admin/staff', {
      email: 'worst@pharmacy.example',
      name: 'Worst Case',
      role: 'pharmacist',
      password: 'worst case passphrase',
    }),
  'POST /api/admin/session': () =>
    post('/api/admin/session', { email: 'nobody@pharmacy.example', password: 'not a passphrase of anyone' }),
  'POST /api/admin/clinics/{clinicId}/partner-users': (f) =>
    post(`/api/admin/clinics/${f.clinic.clinicId}/partner-users`, { email: 'worst@clinic.example', role: 'viewer' }),
  // The operator token has no account: these answer 400 or 404, never more.
  'POST /api/admin/account/totp/confirm': () => post('/api/admin/account/totp/confirm', { code: '123456' }),
  'DELETE /api/admin/account/totp': () => ({ method: 'DELETE', url: '/api/admin/account/totp', body: { code: '123456' } }),
  // The portal, as the fixture's developer: unknown ids and links answer 404, the second factor 409 (not set up).
  'POST /api/portal/session': () =>
    post('/api/portal/session', { email: 'nobody@clinic.example', password: 'not a passphrase of anyone' }),
  'POST /api/portal/invitations/accept': () =>
    post('/api/portal/invitations/accept', { token: 'no-such-link', name: 'Worst Case', password: 'worst case passphrase 2026' }),
  'POST /api/portal/account/totp/confirm': () => post('/api/portal/account/totp/confirm', { code: '123456' }),
  'DELETE /api/portal/account/totp': () => ({ method: 'DELETE', url: '/api/portal/account/totp', body: { code: '123456' } }),
  'POST /api/portal/keys': () => post('/api/portal/keys', { scopes: ['orders:read', 'webhooks:write'], expires_at: inAMonth() }),
  'POST /api/portal/keys/{apiKeyId}/roll': () => post(`/api/portal/keys/${NO_WEBHOOK}/roll`, { expires_in_hours: 1 }),
  'GET /api/portal/requests': () =>
    get(
      '/api/portal/requests?status=4xx&method=GET&route=/api/external/medication-order/:id&since=2026-01-01T00:00:00.000Z&until=2100-01-01T00:00:00.000Z&limit=10',
    ),
  'GET /api/portal/sandbox/orders': () => get('/api/portal/sandbox/orders?limit=10'),
  'POST /api/portal/sandbox/orders/{orderId}/advance': (f) =>
    post(`/api/portal/sandbox/orders/${f.orderId}/advance`, { status: 'processing' }),
  'POST /api/portal/sandbox/orders/{orderId}/hold': (f) =>
    post(`/api/portal/sandbox/orders/${f.orderId}/hold`, { reason_code: 'other', waiting_on: 'partner', message: 'A test hold' }),
  // No such package of the fixture's order: a valid event is 404, never more.
  'POST /api/portal/sandbox/orders/{orderId}/shipments/{shipmentId}/events': (f) =>
    post(`/api/portal/sandbox/orders/${f.orderId}/shipments/${NO_WEBHOOK}/events`, SHIPMENT_EVENT),
  'GET /api/portal/holds': () => get('/api/portal/holds?limit=10'),
  // The fixture's order is not on hold: a valid answer is 409, never more.
  'POST /api/portal/holds/{orderId}/response': (f) =>
    post(`/api/portal/holds/${f.orderId}/response`, {
      message: 'The strength is 0.5 mg.',
      address: { addressLine1: '12 Harbor Road', addressLine2: 'Unit 4', city: 'Portland', state: 'ME', postalCode: '04101' },
    }),
  'POST /api/portal/webhooks': () => post('/api/portal/webhooks', { url: REFUSED_WEBHOOK_URL, max_in_flight: 5 }),
  'PATCH /api/portal/webhooks/{webhookId}': () => ({
    method: 'PATCH',
    url: `/api/portal/webhooks/${NO_WEBHOOK}`,
    body: { max_in_flight: 5, max_per_second: 20 },
  }),
  'POST /api/portal/webhooks/{webhookId}/rotate-secret': () =>
    post(`/api/portal/webhooks/${NO_WEBHOOK}/rotate-secret`, { previous_valid_hours: 1 }),
  'POST /api/portal/webhooks/{webhookId}/recover': () =>
    post(`/api/portal/webhooks/${NO_WEBHOOK}/recover`, { since: anHourAgo() }),
  'GET /api/portal/deliveries': () =>
    get(
      `/api/portal/deliveries?status=failed&event_type=order.created&webhook_id=${NO_WEBHOOK}&since=2026-01-01T00:00:00.000Z&until=2100-01-01T00:00:00.000Z&limit=10`,
    ),
};

const post = (url: string, body: unknown): BaseRequest => ({ method: 'POST', url, body });
const get = (url: string): BaseRequest => ({ method: 'GET', url });

export type AddressedCase = WorstCase & { headers: Record<string, string> };

/** The worst cases of `route`, one at a time, each with the headers of its area. */
export function* worstCasesOfRoute(route: InputRoute, fixture: WorstCaseFixture): Generator<AddressedCase> {
  const base = BASE_REQUESTS[route.key];
  if (!base) throw new Error(`no base request for ${route.key}: add one to BASE_REQUESTS`);
  for (const worstCase of worstCasesOf(route, base(fixture))) {
    yield { ...worstCase, headers: headersOf(route.area, fixture, worstCase.payload !== undefined) };
  }
}

function headersOf(area: Area, fixture: WorstCaseFixture, body: boolean): Record<string, string> {
  const credentials: Record<Area, Record<string, string>> = {
    partner: { 'x-api-key': fixture.clinic.apiKey, accept: 'application/json' },
    admin: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    portal: { ...fixture.portalHeaders, accept: 'application/json' },
  };
  return { ...credentials[area], ...(body ? { 'content-type': 'application/json' } : {}) };
}

/** The host the portal's requests name, and the password of the fixture's developer. */
const PORTAL_HOST = 'portal.worst-case.test';
const PORTAL_PASSWORD = 'worst case portal passphrase 2026';

/**
 * The clinic and records the base requests refer to, made as the operator and a partner make them
 * (over `send`, on a server whose ADMIN_TOKEN is the tests' one), and a developer of the clinic
 * invited by the operator, who sets a password and signs in through the portal's routes. `scheme`:
 * the one the server sees (https behind the TLS proxy), which the portal's own origin has.
 */
export async function createWorstCaseFixture(send: SendRaw, scheme: 'http' | 'https' = 'http'): Promise<WorstCaseFixture> {
  const call = async (area: InputRoute['area'], apiKey: string, method: string, url: string, body: unknown): Promise<any> => {
    const headers = {
      ...(area === 'partner' ? { 'x-api-key': apiKey } : { authorization: `Bearer ${OPERATOR_TOKEN}` }),
      'content-type': 'application/json',
    };
    const answer = await send({ method, url, headers, payload: JSON.stringify(body) });
    if (answer.status !== 200) throw new Error(`${method} ${url} failed with ${answer.status}: ${answer.body}`);
    return JSON.parse(answer.body).data;
  };
  const clinicId: string = (await call('admin', '', 'POST', '/api/admin/clinics', { name: 'Worst-case partner' })).clinic_id;
  const medicationId: string = (
    await call('admin', '', 'POST', `/api/admin/clinics/${clinicId}/medications`, { name: TEST_FORMULARY[0] })
  ).medication_id;
  const key = await call('admin', '', 'POST', `/api/admin/clinics/${clinicId}/api-keys`, {});
  const clinic = { clinicId, apiKey: key.api_key as string, apiKeyId: key.api_key_id as string };
  const practitionerId: string = (
    await call('partner', clinic.apiKey, 'POST', '/api/external/practitioner', practitionerBody(clinicId))
  ).practitioner_id;
  const patientId: string = (
    await call(
      'partner',
      clinic.apiKey,
      'POST',
      '/api/external/patient',
      patientBody(clinicId, { practitioner_id: practitionerId }),
    )
  ).patient_id;
  const setup = { clinic, practitionerId, patientId };
  // A production server ships nowhere until the operator says where (docs/shipping.md#licensed-states).
  await call('admin', '', 'PUT', '/api/admin/licensed-states', { states: STATES_AND_DC });
  const orderId: string = (await call('partner', clinic.apiKey, 'POST', '/api/external/medication-order', orderBody(setup)))
    .medication_request_id;
  return { ...setup, orderId, medicationId, portalHeaders: await portalDeveloper(send, clinicId, `${scheme}://${PORTAL_HOST}`) };
}

/** A developer of `clinicId`, invited, with a password set, signed in: the session's cookie and the portal's own origin. */
async function portalDeveloper(send: SendRaw, clinicId: string, origin: string): Promise<Record<string, string>> {
  const request = async (url: string, body: unknown, headers: Record<string, string>) => {
    const answer = await send({
      method: 'POST',
      url,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    if (answer.status !== 200) throw new Error(`POST ${url} failed with ${answer.status}: ${answer.body}`);
    return answer;
  };
  const email = 'worst-developer@clinic.example';
  const invited = await request(
    `/api/admin/clinics/${clinicId}/partner-users`,
    { email, role: 'developer' },
    { authorization: `Bearer ${OPERATOR_TOKEN}` },
  );
  const token = String(JSON.parse(invited.body).data.invitation_url).split('#')[1];
  const portal = { host: PORTAL_HOST, origin };
  await request('/api/portal/invitations/accept', { token, name: 'Worst Case', password: PORTAL_PASSWORD }, portal);
  const signedIn = await request('/api/portal/session', { email, password: PORTAL_PASSWORD }, portal);
  const setCookie = signedIn.headers?.['set-cookie'];
  const cookie = String((Array.isArray(setCookie) ? setCookie[0] : setCookie) ?? '').split(';')[0];
  if (!cookie) throw new Error('the portal\u2019s sign-in set no cookie');
  return { ...portal, cookie };
}

/**
 * What every answer to a worst case is: never a 5xx; a 4xx unless the case may pass; under 16 KB;
 * an error in the envelope naming at most MAX_DETAILS problems (the message counting the rest);
 * the long input not repeated.
 */
export function expectBoundedAnswer(worstCase: WorstCase, answer: RawAnswer): void {
  const label = worstCase.name;
  expect(answer.status, label).toBeLessThan(500);
  if (worstCase.refused) expect(answer.status, label).toBeGreaterThanOrEqual(400);
  expect(Buffer.byteLength(answer.body), `${label}: answer size`).toBeLessThan(MAX_ANSWER_BYTES);
  if (worstCase.echo) expect(answer.body.includes(worstCase.echo), `${label}: the answer repeats the input`).toBe(false);
  if (answer.status < 400) return;
  const { success, error } = JSON.parse(answer.body);
  expect(success, label).toBe(false);
  expect(error, label).toEqual(
    expect.objectContaining({ code: expect.stringMatching(/^[A-Z_]+$/), request_id: expect.any(String) }),
  );
  const named = Object.keys(error.details ?? {}).length;
  expect(named, `${label}: details`).toBeLessThanOrEqual(MAX_DETAILS);
  if (/\(and \d+ more problems?\)$/.test(error.message)) expect(named, `${label}: details`).toBe(MAX_DETAILS);
}

// Provisioning through the real HTTP APIs, as an operator and a partner would: a clinic with its
// formulary and key (operator API), then practitioners, patients and orders (partner API).
import { performance } from 'node:perf_hooks';
import { fetch } from 'undici';
import { FORMULA_MEDICATION, MEDICATION, formulaEntryBody, orderBody, patientBody, practitionerBody } from './bodies.js';
import { OPERATOR_TOKEN } from './servers.js';

const PRACTITIONERS = 5;
const PATIENTS = 20;
const ORDERS_TO_READ = 20;
/** Requests in flight while provisioning many orders: quick without swamping SQLite. */
const PROVISION_CONCURRENCY = 8;
/** Requests in flight while creating the drain's orders: enough to keep the server busy. */
const ORDER_BATCH_CONCURRENCY = 16;

/** `fetch` that resolves with `data` of a 2xx envelope, or throws with what the server answered. */
async function call(baseUrl, method, path, { body, key } = {}) {
  const headers = { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) };
  if (key) headers['x-api-key'] = key;
  else headers.authorization = `Bearer ${OPERATOR_TOKEN}`;
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const text = await response.text();
  if (!response.ok) throw new Error(`provisioning: ${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text).data : null;
}

/** Runs `task(i)` for i in [0, count) with at most `limit` at once; resolves with the results in order. */
async function inParallel(count, limit, task) {
  const results = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  return results;
}

/**
 * A clinic ready for every scenario: its formulary, a development key, practitioners, patients (in
 * California, which every default carrier serves) and a few orders to read back (`ordersToRead`:
 * none for a clinic that only creates orders, the webhook ones).
 */
export async function provisionClinic(baseUrl, name, { ordersToRead = ORDERS_TO_READ } = {}) {
  const clinic = await call(baseUrl, 'POST', '/api/admin/clinics', { body: { name } });
  const clinicId = clinic.clinic_id;
  await call(baseUrl, 'POST', `/api/admin/clinics/${clinicId}/medications`, { body: { name: MEDICATION } });
  await call(baseUrl, 'POST', `/api/admin/clinics/${clinicId}/medications`, { body: formulaEntryBody() });
  const key = await issueKey({ baseUrl, clinicId });
  const partner = (method, path, body) => call(baseUrl, method, path, { body, key });

  const practitionerIds = [];
  for (let n = 0; n < PRACTITIONERS; n++) {
    practitionerIds.push((await partner('POST', '/api/external/practitioner', practitionerBody(clinicId, n))).practitioner_id);
  }
  const patients = [];
  for (let n = 0; n < PATIENTS; n++) {
    const practitionerId = practitionerIds[n % PRACTITIONERS];
    const { patient_id: patientId } = await partner('POST', '/api/external/patient', patientBody(clinicId, practitionerId, n));
    patients.push({ patientId, practitionerId });
  }
  const clinicSetup = { baseUrl, clinicId, key, practitionerIds, patients };
  const orderIds = [];
  for (let n = 0; n < ordersToRead; n++) orderIds.push(await createOrder(clinicSetup, n));
  if (ordersToRead > 0) await provisionFormulaInUse(clinicSetup);
  return { ...clinicSetup, orderIds };
}

/** Sends one order (of `medication`); resolves with its id. */
async function createOrder({ baseUrl, clinicId, key, patients }, n, { medication = MEDICATION } = {}) {
  const { patientId, practitionerId } = patients[n % patients.length];
  const data = await call(baseUrl, 'POST', '/api/external/medication-order', {
    body: orderBody(clinicId, patientId, practitionerId, medication),
    key,
  });
  return data.medication_request_id;
}

/**
 * The intake-hold scenario's setup: every patient of the clinic gets one order of the formula
 * entry, so that each later one is held at intake for duplicate therapy. Throws unless a probe
 * order is held so: the scenario must measure the path it names.
 */
async function provisionFormulaInUse(clinic) {
  for (let n = 0; n < clinic.patients.length; n++) await createOrder(clinic, n, { medication: FORMULA_MEDICATION });
  const probeId = await createOrder(clinic, 0, { medication: FORMULA_MEDICATION });
  const probe = await call(clinic.baseUrl, 'GET', `/api/external/medication-order/${probeId}`, { key: clinic.key });
  if (probe.status !== 'on_hold' || probe.hold?.reason_code !== 'duplicate_therapy')
    throw new Error(`provisioning: a second formula order was not held for duplicate therapy: ${JSON.stringify(probe.hold)}`);
}

/**
 * `count` new patients of the clinic, none with an order: each takes one order of the formula entry
 * in the distinct-patients scenario, whose duplicate-therapy lookup then finds nothing to hold.
 */
export function provisionPatients(clinic, count, prefix) {
  return inParallel(count, ORDER_BATCH_CONCURRENCY, async (n) => {
    const practitionerId = clinic.practitionerIds[n % clinic.practitionerIds.length];
    const { patient_id: patientId } = await call(clinic.baseUrl, 'POST', '/api/external/patient', {
      body: patientBody(clinic.clinicId, practitionerId, `${prefix}-${n}`),
      key: clinic.key,
    });
    return { patientId, practitionerId };
  });
}

/**
 * `count` orders of the clinic, at most 16 requests at once, as fast as the server answers (the
 * drain's waiting events). Never throws for a refused order: resolves with the ids of the orders
 * created, each request's latency in ms, the failures and the first one's answer, and the seconds
 * it all took.
 */
export async function createOrders(clinic, count) {
  const ids = [];
  const latencies = [];
  let failures = 0;
  let firstFailure = null;
  const started = performance.now();
  await inParallel(count, ORDER_BATCH_CONCURRENCY, async (n) => {
    const sent = performance.now();
    try {
      ids.push(await createOrder(clinic, n));
      latencies.push(performance.now() - sent);
    } catch (error) {
      failures++;
      firstFailure ??= error.message;
    }
  });
  return { ids, latencies, failures, firstFailure, seconds: (performance.now() - started) / 1000 };
}

/**
 * `count` orders moved to shipped through the sandbox: each can be refilled once (a second refill
 * of the same order waits for the first to close), so the refill scenario needs one per request.
 */
export function provisionShippedOrders(clinic, count) {
  return inParallel(count, PROVISION_CONCURRENCY, async (n) => {
    const orderId = await createOrder(clinic, n);
    await call(clinic.baseUrl, 'POST', `/api/external/sandbox/medication-order/${orderId}/advance`, {
      body: { to: 'shipped' },
      key: clinic.key,
    });
    return orderId;
  });
}

/**
 * A new development key of the clinic. Each scenario run gets its own: the rate limit counts per
 * key and calendar minute (at most 1,000,000), which one key shared by several fast runs could reach.
 */
export async function issueKey({ baseUrl, clinicId }) {
  const { api_key: key } = await call(baseUrl, 'POST', `/api/admin/clinics/${clinicId}/api-keys`, { body: {} });
  return key;
}

/** Registers the clinic's webhook endpoint at `url` (the partner route). */
export async function registerWebhook(clinic, url) {
  return call(clinic.baseUrl, 'POST', '/api/external/webhook', {
    body: { clinic_id: clinic.clinicId, webhook_url: url },
    key: clinic.key,
  });
}

/** Deletes the clinic's webhook endpoint: deliveries still pending for it are cancelled. */
export async function deleteWebhook(clinic, webhookId) {
  await call(clinic.baseUrl, 'DELETE', `/api/external/webhook/${webhookId}`, { key: clinic.key });
}

/**
 * The partner's recovery after an outage (docs/webhooks.md, "Recovering after an outage"): every
 * failed or waiting delivery of the endpoint is due now. Resolves with `{ scheduled }`.
 */
export async function recoverWebhook(clinic, webhookId) {
  return call(clinic.baseUrl, 'POST', '/api/external/webhook/recover', {
    body: { clinic_id: clinic.clinicId, webhook_id: webhookId },
    key: clinic.key,
  });
}

/**
 * The webhook queue from the operator's /metrics: outbox events not fanned out, deliveries not
 * delivered, and the attempts this server's own worker made (every outcome; 0 with RUN_WORKER=false).
 * NaN for a figure the server does not show.
 */
export async function webhookBacklog(baseUrl) {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
  const text = await response.text();
  const gauge = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  const attempts = [...text.matchAll(/^webhook_delivery_attempts_total(?:\{[^}]*\})? (\S+)$/gm)].map((m) => Number(m[1]));
  return {
    outbox: gauge('webhook_outbox_backlog'),
    deliveries: gauge('webhook_delivery_backlog'),
    // A counter without any attempt yet may show no sample at all, only its TYPE line.
    attempts: text.includes('# TYPE webhook_delivery_attempts_total') ? attempts.reduce((sum, n) => sum + n, 0) : Number.NaN,
  };
}

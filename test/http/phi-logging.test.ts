import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { CapturedLogs } from '../helpers/captured-logs.js';
import { VALID_NPI } from '../helpers/fixtures.js';
import { OPERATOR_TOKEN, TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { fastEnv, registerEndpoint } from '../webhooks/support.js';

/** The forms a value could take in a log line: as is, JSON-escaped, URL-encoded, base64, lower case. */
function variantsOf(value: string): string[] {
  const variants = [
    value,
    JSON.stringify(value).slice(1, -1),
    encodeURIComponent(value),
    Buffer.from(value).toString('base64'),
    Buffer.from(value).toString('base64url'),
    value.toLowerCase(),
  ];
  return [...new Set(variants)];
}

/** The (name, value) pairs whose value, in any of its forms, appears in the text. */
function leaksIn(text: string, values: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    for (const variant of variantsOf(value)) {
      if (text.includes(variant)) found.push(`${name} (${variant})`);
    }
  }
  return found;
}

function ok(res: Reply, what: string): any {
  if (res.status !== 200) throw new Error(`${what} failed with ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

for (const dialect of DIALECTS) {
  describe(`logs at LOG_LEVEL=trace on ${dialect}`, () => {
    const logs = new CapturedLogs();
    let t: TestApp;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      t = await TestApp.start({ dialect, logStream: logs.stream, env: fastEnv({ LOG_LEVEL: 'trace' }) });
      receiver = await WebhookReceiver.start([{ status: 200, body: 'ok' }]);
    });
    afterAll(async () => {
      await receiver.stop();
      await t.close();
    });

    it('when a whole partner and operator flow runs with distinctive PHI and secrets, then none of them appears in any log line, in any form', async () => {
      expect(t.app.log.level).toBe('trace');
      const tag = randomBytes(4).toString('hex');
      // Distinctive values: each must be found nowhere in the logs.
      const phi = {
        practitionerFirstName: `Prudencia${tag}`,
        practitionerLastName: 'Quillfeather',
        practitionerEmail: `prudencia.${tag}@clinic-example.org`,
        practitionerPhone: '(512) 555-0177',
        practitionerAddress: '4417 Larkspur Hollow Rd',
        patientFirstName: `Zephyrine${tag}`,
        patientMiddleName: 'Odalys',
        patientLastName: 'Vantongeren',
        patientDob: '1937-02-28',
        patientEmail: `zephyrine.${tag}@patient-example.org`,
        patientPhone: '(916) 555-0142',
        patientAddress1: '771 Quasar Crescent',
        patientAddress2: 'Suite Nebula 12',
        patientCity: 'Wolfsburgh Falls',
        medication: 'Thornquillase',
        direction: 'Apply Quibblewort-scented cream nightly',
        notes: 'Allergic to xylophoric dust',
        reasonForCompounding: 'Needs a dye-free marzipan base',
        badDob: '1937-02-30',
        badEmail: `not-an-email-Zephyrine${tag}`,
        searchedName: `Vantongeren${tag}`,
      };

      // The operator sets up the clinic, its formulary and the partner's key.
      const clinicId = ok(await t.operator.post('/api/admin/clinics', { name: 'Northside Clinic' }), 'create clinic').clinic_id;
      ok(await t.operator.post(`/api/admin/clinics/${clinicId}/medications`, { name: phi.medication }), 'add medication');
      const apiKey: string = ok(await t.operator.post(`/api/admin/clinics/${clinicId}/api-keys`), 'issue key').api_key;
      const partner = t.partner(apiKey);
      const secrets = {
        apiKey,
        apiKeyRandomPart: apiKey.slice(-30),
        operatorToken: OPERATOR_TOKEN,
        wrongApiKey: `dev_${randomBytes(32).toString('base64url')}`,
        wrongOperatorToken: `wrong-operator-${randomBytes(12).toString('hex')}`,
        cookie: `session-${randomBytes(12).toString('hex')}`,
      };

      // Practitioner and patient: create, read.
      const practitionerId: string = ok(
        await partner.post('/api/external/practitioner', {
          first_name: phi.practitionerFirstName,
          last_name: phi.practitionerLastName,
          email: phi.practitionerEmail,
          npi: VALID_NPI,
          is_veterinarian: false,
          assigned_clinic: clinicId,
          phone: phi.practitionerPhone,
          address_line_1: phi.practitionerAddress,
          city: 'Austin',
          state_code: 'TX',
          zip_code: '78701',
        }),
        'create practitioner',
      ).practitioner_id;
      const patientBody = {
        first_name: phi.patientFirstName,
        middle_name: phi.patientMiddleName,
        last_name: phi.patientLastName,
        gender: 'female',
        dob: phi.patientDob,
        species: 'human',
        status: 'active',
        practitioner_id: practitionerId,
        assigned_clinic: clinicId,
        contacts: [
          { key: 'email', value: phi.patientEmail },
          { key: 'phone', value: phi.patientPhone },
        ],
        addresses: [
          {
            addressLine1: phi.patientAddress1,
            addressLine2: phi.patientAddress2,
            city: phi.patientCity,
            state: 'CA',
            postalCode: '95814',
          },
        ],
      };
      const patientId: string = ok(await partner.post('/api/external/patient', patientBody), 'create patient').patient_id;
      const readPatient = await partner.get(`/api/external/patient/${patientId}`);
      ok(readPatient, 'read patient');
      ok(await partner.get(`/api/external/practitioner/${practitionerId}`), 'read practitioner');

      // Refusals that see the values: validation errors, malformed JSON, a search the API does not
      // have (the name in the query string), a name where an id belongs, wrong credentials.
      const invalid = await partner.post('/api/external/patient', { ...patientBody, dob: phi.badDob });
      expect(invalid.status).toBe(400);
      const invalidEmail = await partner.post('/api/external/patient', {
        ...patientBody,
        contacts: [{ key: 'email', value: phi.badEmail }],
      });
      expect(invalidEmail.status).toBe(400);
      const malformed = await t.request('POST', '/api/external/patient', {
        headers: { 'x-api-key': apiKey, accept: 'application/json', 'content-type': 'application/json' },
        payload: `{"first_name": "${phi.patientFirstName}", "last_name": "${phi.patientLastName}", `,
      });
      expect(malformed.status).toBe(400);
      const search = await partner.get(
        `/api/external/patient?last_name=${encodeURIComponent(phi.searchedName)}&email=${encodeURIComponent(phi.patientEmail)}`,
      );
      expect(search.status).toBe(405);
      expect((await partner.get(`/api/external/patient/${phi.patientLastName}`)).status).toBe(400);
      expect((await partner.get(`/api/external/patients/${encodeURIComponent(phi.patientFirstName)}`)).status).toBe(404);
      const refusedKey = await t.request('GET', '/api/external/carriers', {
        headers: { 'x-api-key': secrets.wrongApiKey, cookie: `sid=${secrets.cookie}`, authorization: `Bearer ${OPERATOR_TOKEN}` },
      });
      expect(refusedKey.status).toBe(401);
      const refusedToken = await t.request('GET', '/api/admin/clinics', {
        headers: { authorization: `Bearer ${secrets.wrongOperatorToken}`, 'x-api-key': apiKey },
      });
      expect(refusedToken.status).toBe(401);

      // Webhooks: register (the secret is in the answer), the test call, then a real delivery.
      const { webhookId, secret } = await registerEndpoint(t, { clinicId, apiKey, apiKeyId: '' }, receiver.url());
      const testCall = ok(
        await partner.post('/api/external/webhook/test', { clinic_id: clinicId, webhook_id: webhookId }),
        'test',
      );
      expect(testCall.delivered).toBe(true);

      // An order, read; shipped and delivered by the operator; a refill; the worker delivers the events.
      const orderId: string = ok(
        await partner.post('/api/external/medication-order', {
          patient_id: patientId,
          practitioner_id: practitionerId,
          clinic_id: clinicId,
          carrier_id: 'fedex',
          service_id: 'fedex_ground',
          medication_requests: [
            {
              medication: phi.medication,
              dose: '0.25mg',
              quantity: 1,
              refills: '2',
              direction: phi.direction,
              notes: phi.notes,
              reason_for_compounding: phi.reasonForCompounding,
            },
          ],
        }),
        'create order',
      ).medication_request_id;
      ok(await partner.get(`/api/external/medication-order/${orderId}`), 'read order');
      ok(await t.operator.post(`/api/admin/medication-requests/${orderId}/status`, { status: 'processing' }), 'processing');
      ok(
        await t.operator.post(`/api/admin/medication-requests/${orderId}/status`, {
          status: 'shipped',
          tracking_number: '123456789012',
        }),
        'shipped',
      );
      const refill = ok(await partner.post('/api/external/refill-request', { medication_request_id: orderId }), 'refill');
      ok(await partner.get(`/api/external/refill-request/${refill.refill_request_id}`), 'read refill');
      ok(await t.operator.get(`/api/admin/medication-requests/${orderId}`), 'operator reads the order');
      ok(await t.operator.get(`/api/admin/medication-requests?clinic_id=${clinicId}`), 'operator lists orders');

      const worker = new WebhookWorker(t.ctx, { logger: t.app.log });
      try {
        await worker.drain();
      } finally {
        await worker.stop();
      }
      ok(await t.operator.get(`/api/admin/webhook-deliveries?clinic_id=${clinicId}`), 'operator lists deliveries');
      expect(receiver.received.length).toBeGreaterThanOrEqual(4);

      // The capture works: every request was logged, and so were the worker's deliveries.
      const lines = logs.raw.map((line) => JSON.parse(line) as { msg?: string; reqId?: string });
      expect(lines.filter((line) => line.msg === 'incoming request').length).toBeGreaterThanOrEqual(25);
      expect(lines.some((line) => line.msg === 'webhook delivered')).toBe(true);
      expect(lines.some((line) => line.reqId === invalid.headers['x-request-id'])).toBe(true);

      const webhookSecrets = { webhookSecret: secret, webhookSecretKey: secret.slice('whsec_'.length) };
      expect(leaksIn(logs.text, { ...phi, ...secrets, ...webhookSecrets })).toEqual([]);

      // A request is logged by its route pattern and the client address, never by its URL.
      const readLine = lines.find(
        (line) => line.msg === 'incoming request' && line.reqId === readPatient.headers['x-request-id'],
      );
      expect((readLine as { req?: unknown } | undefined)?.req).toEqual({
        method: 'GET',
        route: '/api/external/patient/:patientId',
        remoteAddress: '127.0.0.1',
      });
    });
  });
}

describe('credentials in logged headers', () => {
  it('when code of the service logs request headers, then authorization, x-api-key and cookie are censored', async () => {
    const logs = new CapturedLogs();
    const t = await TestApp.start({ dialect: 'sqlite', logStream: logs.stream, env: { LOG_LEVEL: 'trace' } });
    try {
      const headers = {
        authorization: `Bearer ${OPERATOR_TOKEN}`,
        'x-api-key': 'dev_SecretKeyValue0123',
        cookie: 'sid=SecretCookie42',
      };
      t.app.log.info({ headers }, 'headers');
      t.app.log.debug({ request: { headers } }, 'request headers');

      expect(logs.raw).toHaveLength(2);
      expect(logs.text).toContain('[Redacted]');
      expect(leaksIn(logs.text, { token: OPERATOR_TOKEN, key: 'dev_SecretKeyValue0123', cookie: 'SecretCookie42' })).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

// Over 250 lines: one end-to-end story of the compounding record against the built server, told in order.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import {
  databaseUrlOf,
  killServerProcesses,
  printServerProcessesIfFailed,
  sandboxCredentials,
  startServerProcess,
} from '../helpers/server-process.js';
import { OPERATOR_TOKEN } from '../helpers/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * The compounding record of issue 30 as the pharmacy and a partner live it, end to end: the built
 * server as a process on a real port (sign-offs required), plain HTTP, a real receiver of the signed
 * events. A formula is added; an order for a patient allergic to its active ingredient is held at
 * intake and resumed by a pharmacist; both sign-offs are given by the pharmacist signed in as herself (the
 * operator token cannot sign, and the final check waits for the fill); the order is
 * filled with its lots and the beyond-use date the USP <795> table gives; it ships with its lots in
 * `order.fulfilled`; the lot is recalled by the pharmacy and by the partner. An unlicensed state and
 * a controlled preparation without a DEA number are refused.
 */

const databases: TestDatabase[] = [];
afterEach(printServerProcessesIfFailed);
afterAll(async () => {
  await killServerProcesses();
  await Promise.all(databases.map((database) => database.drop()));
});

const LOT = 'LDN-24-117';

describe.each(DIALECTS)('the compounding record over HTTP on %s', { timeout: 90_000 }, (dialect) => {
  it('when an allergic patient’s order is held, resumed, signed off, filled and shipped, then the event carries its lot and the lot is recalled', async () => {
    const database = await createTestDatabase(dialect);
    databases.push(database);
    const server = await startServerProcess({
      DATABASE_URL: databaseUrlOf(database),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      REQUIRE_PHARMACIST_SIGNOFF: 'true',
    });
    const { clinicId, apiKey } = sandboxCredentials(server);
    const receiver = await WebhookReceiver.start([{ status: 200, body: 'ok' }]);
    try {
      const send = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
        const res = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return {
          status: res.status,
          body: (await res.json()) as { data: any; error?: { code: string; message: string; details?: any } },
        };
      };
      const ok = async (answer: Promise<{ status: number; body: any }>, what: string) => {
        const { status, body } = await answer;
        if (status !== 200) throw new Error(`${what} answered ${status}: ${JSON.stringify(body)}`);
        return body.data;
      };
      const partner = (method: string, path: string, body?: unknown) => send(method, path, body, { 'x-api-key': apiKey });
      const pharmacy = (method: string, path: string, body?: unknown) =>
        send(method, path, body, { authorization: `Bearer ${OPERATOR_TOKEN}` });

      const { secret } = await ok(
        partner('POST', '/api/external/webhook', { clinic_id: clinicId, webhook_url: receiver.url() }),
        'webhook',
      );
      const pharmacist = await ok(
        pharmacy('POST', '/api/admin/staff', {
          email: 'rph@pharmacy.example',
          name: 'Rita Pharmacist',
          role: 'pharmacist',
          password: 'correct horse battery staple',
        }),
        'staff',
      );

      // The formula: a solid, non-sterile preparation (USP <795>: 180 days).
      await ok(
        pharmacy('POST', `/api/admin/clinics/${clinicId}/medications`, {
          name: 'Low Dose Naltrexone',
          strength: '4.5 mg',
          dosage_form: 'capsule',
          ingredients: [
            { name: 'Naltrexone Hydrochloride', strength: '4.5', unit: 'mg', active: true },
            { name: 'Microcrystalline cellulose', strength: '250', unit: 'mg', active: false },
          ],
          preparation: 'non_sterile',
          bud_category: 'solid',
          storage: 'room',
          controlled_schedule: null,
          restricted_states: ['NV'],
        }),
        'formula',
      );
      const formulary = await ok(partner('GET', '/api/external/medications'), 'formulary');
      expect(JSON.stringify(formulary)).toContain('Naltrexone Hydrochloride');

      const practitionerId = (await ok(partner('POST', '/api/external/practitioner', practitionerBody(clinicId)), 'practitioner'))
        .practitioner_id as string;
      const patientId = (
        await ok(
          partner(
            'POST',
            '/api/external/patient',
            patientBody(clinicId, {
              practitioner_id: practitionerId,
              allergies: [{ substance: 'naltrexone', severity: 'severe' }],
            }),
          ),
          'patient',
        )
      ).patient_id as string;
      const orderBody = (patient: string, medication: string) => ({
        patient_id: patient,
        practitioner_id: practitionerId,
        clinic_id: clinicId,
        carrier_id: 'fedex',
        service_id: 'fedex_ground',
        medication_requests: [{ medication, dose: '4.5mg', quantity: 30, direction: 'One capsule at bedtime', days_supply: 30 }],
      });

      // Accepted (200), and on hold at once: the patient is allergic to its active ingredient.
      const orderId = (
        await ok(partner('POST', '/api/external/medication-order', orderBody(patientId, 'Low Dose Naltrexone')), 'order')
      ).medication_request_id as string;
      const held = await ok(partner('GET', `/api/external/medication-order/${orderId}`), 'read');
      expect(held).toMatchObject({ status: 'on_hold', hold: { reason_code: 'allergy_conflict', waiting_on: 'pharmacy' } });
      expect(held.medication_requests[0].fill).toBeNull();
      const itemId = held.medication_requests[0].id as string;

      // The pharmacist, signed in to the console, weighs the conflict and overrides it with her reason; the sign-off gate
      // holds each move until signed.
      const session = await fetch(`${server.baseUrl}/api/admin/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.baseUrl },
        body: JSON.stringify({ email: 'rph@pharmacy.example', password: 'correct horse battery staple' }),
      });
      expect(session.status).toBe(200);
      const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const asPharmacist = (method: string, path: string, body?: unknown) =>
        send(method, path, body, { cookie, origin: server.baseUrl });
      await ok(
        asPharmacist('POST', `/api/admin/medication-requests/${orderId}/resume`, {
          message: 'Prescriber confirmed.',
          override_reason: 'The prescriber confirmed the reaction was mild; benefit outweighs the risk.',
        }),
        'resume',
      );
      const resumed = await ok(pharmacy('GET', `/api/admin/medication-requests/${orderId}`), 'detail');
      expect(resumed.hold_history.at(-1)).toMatchObject({
        kind: 'resume',
        resolution: 'override',
        actor_name: 'Rita Pharmacist',
      });
      const unsigned = await pharmacy('POST', `/api/admin/medication-requests/${orderId}/status`, { status: 'processing' });
      expect(unsigned.status).toBe(409);
      expect(unsigned.body.error?.details).toHaveProperty('prescription_review');
      // Nobody signs for her: the operator token naming her is refused (issue 39).
      const forged = await pharmacy('POST', `/api/admin/medication-requests/${orderId}/signoffs`, {
        kind: 'prescription_review',
        checked: ['allergies', 'duplicate_therapy', 'dose'],
        pharmacist_id: pharmacist.staff_id,
      });
      expect(forged.status).toBe(403);
      const review = await ok(
        asPharmacist('POST', `/api/admin/medication-requests/${orderId}/signoffs`, {
          kind: 'prescription_review',
          checked: ['allergies', 'duplicate_therapy', 'dose'],
        }),
        'review',
      );
      expect(review).toMatchObject({ kind: 'prescription_review', pharmacist_name: 'Rita Pharmacist' });
      await ok(pharmacy('POST', `/api/admin/medication-requests/${orderId}/status`, { status: 'processing' }), 'processing');

      // The final check waits for the fill (409 naming the item).
      const early = await asPharmacist('POST', `/api/admin/medication-requests/${orderId}/signoffs`, { kind: 'final_check' });
      expect(early.status).toBe(409);
      expect(early.body.error?.details).toHaveProperty(['medication_requests[0].fill']);

      // The fill: compounded on 2026-11-01, a solid is beyond use 180 days later (2027-04-30).
      await ok(
        pharmacy('POST', `/api/admin/medication-requests/${orderId}/fill`, {
          items: [
            {
              item_id: itemId,
              lot_number: LOT,
              compounded_at: '2026-11-01T15:00:00.000Z',
              ingredient_lots: [{ ingredient: 'Naltrexone Hydrochloride', lot_number: 'NTX-API-9', expires_on: '2028-06-30' }],
            },
          ],
        }),
        'fill',
      );
      const filled = await ok(partner('GET', `/api/external/medication-order/${orderId}`), 'read');
      expect(filled.medication_requests[0].fill).toEqual({
        lot_number: LOT,
        beyond_use_date: '2027-04-30',
        storage: 'room',
        beyond_use_at: null,
        beyond_use_basis: 'usp_795',
        formula_version: 1,
      });

      const unchecked = await pharmacy('POST', `/api/admin/medication-requests/${orderId}/status`, {
        status: 'shipped',
        tracking_number: '123456789012',
      });
      expect(unchecked.status).toBe(409);
      expect(unchecked.body.error?.details).toHaveProperty('final_check');
      // The check from the pharmacist's own session names them without a pharmacist_id.
      await ok(asPharmacist('POST', `/api/admin/medication-requests/${orderId}/signoffs`, { kind: 'final_check' }), 'check');
      await ok(
        pharmacy('POST', `/api/admin/medication-requests/${orderId}/status`, {
          status: 'shipped',
          tracking_number: '123456789012',
        }),
        'ship',
      );
      const detail = await ok(pharmacy('GET', `/api/admin/medication-requests/${orderId}`), 'detail');
      expect(detail.signoffs.map((s: any) => [s.kind, s.pharmacist_name])).toEqual([
        ['prescription_review', 'Rita Pharmacist'],
        ['final_check', 'Rita Pharmacist'],
      ]);

      // order.fulfilled names the lot and its date, and nothing of the patient.
      const received = await receiver.waitFor(4, 30_000);
      const events = received.map((request) => WebhookReceiver.verify(secret, request) as { type: string; data: any });
      const fulfilled = events.find((event) => event.type === 'order.fulfilled');
      expect(fulfilled?.data.items).toEqual([
        { medication: 'Low Dose Naltrexone', lot_number: LOT, beyond_use_date: '2027-04-30' },
      ]);
      expect(events.map((event) => event.type).sort()).toEqual([
        'order.created',
        'order.fulfilled',
        'order.on_hold',
        'order.resumed',
      ]);
      const bodies = received.map((request) => request.body).join('\n');
      for (const phi of ['Grace', 'Hopper', 'naltrexone', 'Prescriber confirmed']) expect(bodies).not.toContain(phi);

      // The recall: the pharmacy across clinics (JSON and CSV), the partner within its own; an
      // ingredient lot finds the preparation made from it.
      const recalled = await ok(pharmacy('GET', `/api/admin/lots/${LOT}/orders`), 'recall');
      expect(recalled.items).toMatchObject([
        { medication_request_id: orderId, status: 'shipped', match: 'preparation', patient: { last_name: 'Hopper' } },
      ]);
      const byIngredient = await ok(pharmacy('GET', '/api/admin/lots/NTX-API-9/orders'), 'ingredient recall');
      expect(byIngredient.items).toMatchObject([{ medication_request_id: orderId, match: 'ingredient' }]);
      const csv = await fetch(`${server.baseUrl}/api/admin/lots/${LOT}/orders`, {
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, accept: 'text/csv' },
      });
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(await csv.text()).toContain(orderId);
      const own = await ok(partner('GET', `/api/external/medication-orders?lot_number=${LOT}`), 'partner recall');
      expect(JSON.stringify(own)).toContain(orderId);

      // Refused at intake: a state the entry may not go to, and a controlled preparation from a
      // prescriber without a DEA number.
      const nevada = (
        await ok(
          partner(
            'POST',
            '/api/external/patient',
            patientBody(clinicId, {
              practitioner_id: practitionerId,
              no_known_allergies: true,
              addresses: [{ addressLine1: '1 Main St', city: 'Reno', state: 'NV', postalCode: '89501' }],
            }),
          ),
          'patient in NV',
        )
      ).patient_id as string;
      const restricted = await partner('POST', '/api/external/medication-order', orderBody(nevada, 'Low Dose Naltrexone'));
      expect(restricted.status).toBe(400);
      expect(restricted.body.error).toMatchObject({ code: 'STATE_NOT_LICENSED', details: { state: 'NV' } });

      await ok(
        pharmacy('POST', `/api/admin/clinics/${clinicId}/medications`, {
          name: 'Ketamine Troche',
          ingredients: [{ name: 'Ketamine Hydrochloride', strength: '50', unit: 'mg', active: true }],
          preparation: 'non_sterile',
          bud_category: 'solid',
          storage: 'room',
          controlled_schedule: 'III',
        }),
        'controlled entry',
      );
      const controlled = await partner('POST', '/api/external/medication-order', orderBody(nevada, 'Ketamine Troche'));
      expect(controlled.status).toBe(400);
      expect(controlled.body.error?.details).toHaveProperty('dea_number');

      // And a state the pharmacy holds no permit in, once the operator narrows the list.
      await ok(pharmacy('POST', `/api/admin/clinics/${clinicId}/medications`, { name: 'Vitamin D3 Capsule' }), 'entry');
      await ok(pharmacy('PUT', '/api/admin/licensed-states', { states: ['CA', 'TX'] }), 'licensed states');
      const unlicensed = await partner('POST', '/api/external/medication-order', orderBody(nevada, 'Vitamin D3 Capsule'));
      expect(unlicensed.status).toBe(400);
      expect(unlicensed.body.error).toMatchObject({ code: 'STATE_NOT_LICENSED', details: { state: 'NV' } });
    } finally {
      await receiver.stop();
      await server.stop();
    }
  });
});

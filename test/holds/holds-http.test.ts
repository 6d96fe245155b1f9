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
 * The hold loop of issue 29 as a partner and the pharmacy live it: the built server as a process on
 * a real port (its own webhook worker), plain HTTP, a real receiver of the signed events. Held by the
 * pharmacy, answered by the partner, resumed, shipped; and an address hold that resumes itself.
 */

const databases: TestDatabase[] = [];
afterEach(printServerProcessesIfFailed);
afterAll(async () => {
  await killServerProcesses();
  await Promise.all(databases.map((database) => database.drop()));
});

describe.each(DIALECTS)('the hold loop over HTTP on %s', { timeout: 60_000 }, (dialect) => {
  it('when the pharmacy holds, the partner answers and the pharmacy resumes and ships, then every event arrives signed and the address hold resumes itself', async () => {
    const database = await createTestDatabase(dialect);
    databases.push(database);
    const server = await startServerProcess({ DATABASE_URL: databaseUrlOf(database), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    const { clinicId, apiKey } = sandboxCredentials(server);
    const receiver = await WebhookReceiver.start([{ status: 200, body: 'ok' }]);
    try {
      const call = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
        const res = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const json = (await res.json()) as { data: any; message: string };
        if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
        return json;
      };
      const partner = (method: string, path: string, body?: unknown) => call(method, path, body, { 'x-api-key': apiKey });
      const pharmacy = (path: string, body?: unknown) => call('POST', path, body, { authorization: `Bearer ${OPERATOR_TOKEN}` });

      const { secret } = (await partner('POST', '/api/external/webhook', { clinic_id: clinicId, webhook_url: receiver.url() }))
        .data;
      const practitionerId = (await partner('POST', '/api/external/practitioner', practitionerBody(clinicId))).data
        .practitioner_id;
      const newPatient = async (): Promise<string> =>
        (await partner('POST', '/api/external/patient', patientBody(clinicId, { practitioner_id: practitionerId }))).data
          .patient_id;
      // Each order its own patient: a second active order of the sandbox's Semaglutide (a formula)
      // for one patient would be held at intake as duplicate therapy.
      const order = async (patientId: string) =>
        (
          await partner('POST', '/api/external/medication-order', {
            patient_id: patientId,
            practitioner_id: practitionerId,
            clinic_id: clinicId,
            carrier_id: 'fedex',
            service_id: 'fedex_ground',
            medication_requests: [{ medication: 'Semaglutide', dose: '0.25mg', quantity: 1, direction: 'Inject weekly' }],
          })
        ).data.medication_request_id as string;

      const first = await order(await newPatient());
      await pharmacy(`/api/admin/medication-requests/${first}/status`, { status: 'processing' });
      await pharmacy(`/api/admin/medication-requests/${first}/hold`, {
        reason_code: 'prescription_clarification',
        message: 'Weekly or daily?',
      });
      expect((await partner('GET', `/api/external/medication-order/${first}`)).data.hold).toMatchObject({
        reason_code: 'prescription_clarification',
        waiting_on: 'partner',
        message: 'Weekly or daily?',
      });
      const answered = await partner('POST', `/api/external/medication-order/${first}/hold-response`, { message: 'Weekly.' });
      expect(answered.data.hold.waiting_on).toBe('pharmacy');
      expect((await pharmacy(`/api/admin/medication-requests/${first}/resume`)).data.status).toBe('processing');
      await pharmacy(`/api/admin/medication-requests/${first}/status`, { status: 'shipped', tracking_number: '123456789012' });

      const second = await order(await newPatient());
      await pharmacy(`/api/admin/medication-requests/${second}/hold`, {
        reason_code: 'address_undeliverable',
        message: 'No such street number.',
      });
      const corrected = await partner('POST', `/api/external/medication-order/${second}/hold-response`, {
        message: 'Corrected.',
        address: { addressLine1: '20 Elm St', city: 'Sacramento', state: 'CA', postalCode: '95814' },
      });
      expect(corrected.data).toMatchObject({ status: 'pending', hold: null, shipping_address: { addressLine1: '20 Elm St' } });

      const received = await receiver.waitFor(7, 30_000);
      // Deliveries to one endpoint may run side by side: the events' own times give their order.
      const events = received
        .map((request) => WebhookReceiver.verify(secret, request) as { type: string; timestamp: string; data: any })
        .sort((a, b) => a.timestamp.localeCompare(b.timestamp));
      const of = (id: string) => events.filter((event) => event.data.medication_request_id === id).map((event) => event.type);
      expect(of(first)).toEqual(['order.created', 'order.on_hold', 'order.resumed', 'order.fulfilled']);
      expect(of(second)).toEqual(['order.created', 'order.on_hold', 'order.resumed']);
      const bodies = received.map((request) => request.body).join('\n');
      for (const text of ['Weekly or daily', 'Weekly.', 'No such street', '20 Elm St']) expect(bodies).not.toContain(text);
    } finally {
      await receiver.stop();
      await server.stop();
    }
  });
});

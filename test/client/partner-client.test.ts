import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPartnerClient,
  verifyWebhook,
  WebhookVerificationError,
  type OrderCreatedEvent,
  type OrderFulfilledEvent,
  type PartnerClient,
  type WebhookEvent,
} from '../../clients/typescript/src/index.js';
import { REQUEST_EXAMPLES } from '../../src/openapi-examples.js';
import { killServerProcesses, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * The typed client (clients/typescript) as a partner uses it: the whole partner flow against the
 * built server as a child process, in development on SQLite, with the sandbox clinic and key its
 * first start prints, and the webhooks it sends verified with the client's verifyWebhook.
 */
describe('the typed TypeScript client against a development server', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ts-client-'));
  let server: ServerProcess;
  let receiver: WebhookReceiver;
  let client: PartnerClient;
  let clinicId: string;

  /** A value the first start prints, e.g. `  clinic_id: …`. */
  function bannerValue(label: string): string {
    const value = new RegExp(`^\\s*${label}: (\\S+)\\s*$`, 'm').exec(server.stdout())?.[1];
    if (value === undefined) throw new Error(`no ${label} in the banner:\n${server.stdout()}`);
    return value;
  }

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    server = await startServerProcess({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, { cwd: dir });
    clinicId = bannerValue('clinic_id');
    client = createPartnerClient({ baseUrl: server.baseUrl, apiKey: bannerValue('x-api-key') });
  });
  afterAll(async () => {
    await killServerProcesses();
    await receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when a partner registers a webhook, a practitioner and a patient, prices and places an order, advances it and asks a refill, then every call is typed and the webhooks verify', async () => {
    const webhook = await client.POST('/api/external/webhook', { body: { clinic_id: clinicId, webhook_url: receiver.url() } });
    const secret = webhook.data?.data.secret ?? '';
    expect(secret, JSON.stringify(webhook.error)).toMatch(/^whsec_/);

    const practitioner = await client.POST('/api/external/practitioner', {
      body: { ...example('createPractitioner'), assigned_clinic: clinicId },
    });
    const practitionerId = practitioner.data?.data.practitioner_id ?? '';
    expect(practitionerId, JSON.stringify(practitioner.error)).not.toBe('');

    const patient = await client.POST('/api/external/patient', {
      body: { ...example('createPatient'), assigned_clinic: clinicId, practitioner_id: practitionerId },
    });
    const patientId = patient.data?.data.patient_id ?? '';
    expect(patientId, JSON.stringify(patient.error)).not.toBe('');

    const carriers = await client.GET('/api/external/carriers');
    expect(carriers.data?.data.carriers.map((carrier) => carrier.id)).toContain('fedex');
    const prices = await client.GET('/api/external/carriers/{carrierId}/services', {
      params: { path: { carrierId: 'fedex' }, query: { patientId } },
    });
    expect(prices.data?.patientState).toBe('California');
    const service = prices.data?.data.find((candidate) => candidate.id === 'fedex_ground');
    expect(service?.originalCost).toEqual(expect.any(Number));

    const medications = await client.GET('/api/external/medications');
    expect(medications.error).toBeUndefined();

    const created = await client.POST('/api/external/medication-order', {
      body: { ...example('createMedicationOrder'), clinic_id: clinicId, patient_id: patientId, practitioner_id: practitionerId },
    });
    const orderId = created.data?.data.medication_request_id ?? '';
    expect(orderId, JSON.stringify(created.error)).not.toBe('');

    const advanced = await client.POST('/api/external/sandbox/medication-order/{id}/advance', {
      params: { path: { id: orderId } },
      body: { to: 'shipped' },
    });
    expect(advanced.data?.data.status, JSON.stringify(advanced.error)).toBe('shipped');

    const order = await client.GET('/api/external/medication-order/{id}', { params: { path: { id: orderId } } });
    expect(order.data?.data.status).toBe('shipped');

    const refill = await client.POST('/api/external/refill-request', { body: { medication_request_id: orderId } });
    const refillOrderId = refill.data?.data.medication_order_id ?? '';
    expect(refillOrderId, JSON.stringify(refill.error)).not.toBe('');

    // The order's creation, its shipping, the refill and the refill's new order.
    const deliveries = await receiver.waitFor(4);
    const events: WebhookEvent[] = deliveries.map((delivery) => verifyWebhook(secret, delivery.body, delivery.headers));
    expect(events.map((event) => event.type).sort()).toEqual([
      'order.created',
      'order.created',
      'order.fulfilled',
      'refill.ready',
    ]);
    const fulfilled = events.find((event): event is OrderFulfilledEvent => event.type === 'order.fulfilled');
    expect(fulfilled?.data.medication_request_id).toBe(orderId);
    const refillOrder = events.find(
      (event): event is OrderCreatedEvent => event.type === 'order.created' && event.data.refill_of === orderId,
    );
    expect(refillOrder?.data.medication_request_id).toBe(refillOrderId);

    const tampered = deliveries[0]!;
    expect(() => verifyWebhook(secret, `${tampered.body} `, tampered.headers)).toThrow(WebhookVerificationError);
  });

  it('when a call is refused, then the client answers the typed error envelope', async () => {
    const missing = await client.GET('/api/external/medication-order/{id}', {
      params: { path: { id: '00000000-0000-4000-8000-000000000000' } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe('NOT_FOUND');
  });

  it('when the client pins 1.0.0, 1.1.0, 1.2.0, 1.3.0 or 1.4.0, then the server answers as that version; unpinned, as 1.5.0; pinned 1.6.0, refused naming all six', async () => {
    const apiKey = bannerValue('x-api-key');
    for (const apiVersion of ['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0']) {
      const pinned = await createPartnerClient({ baseUrl: server.baseUrl, apiKey, apiVersion }).GET('/api/external/carriers');
      expect(pinned.response.status, apiVersion).toBe(200);
      expect(pinned.response.headers.get('Api-Version'), apiVersion).toBe(apiVersion);
    }

    const unpinned = await client.GET('/api/external/carriers');
    expect(unpinned.response.headers.get('Api-Version')).toBe('1.5.0');

    const unreleased = await createPartnerClient({ baseUrl: server.baseUrl, apiKey, apiVersion: '1.6.0' }).GET(
      '/api/external/carriers',
    );
    expect(unreleased.response.status).toBe(400);
    expect(unreleased.response.headers.get('Api-Version')).toBe('1.5.0');
    expect(unreleased.error?.error.details).toEqual({
      'Api-Version': 'names a version this server does not answer; supported versions: 1.0.0, 1.1.0, 1.2.0, 1.3.0, 1.4.0, 1.5.0',
    });
  });
});

/** The document's own request example of an operation (what the reference page's "Try it out" sends). */
function example(operationId: string): any {
  return REQUEST_EXAMPLES[operationId];
}

import { createHmac } from 'node:crypto';
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
 * Issue 31 as a partner, the pharmacy and a carrier service live it: the built server as a process
 * (its own webhook worker), plain HTTP, real receivers of the signed events. One order shipped in two
 * packages: one package's journey told by the operator API, the other's by a signed EasyPost
 * `tracker.updated` body; the order delivered when both are; the events in `sequence` order; an
 * endpoint that takes only `order.delivered`; the event log answering the same events with the same
 * ids; and an exception that puts another order on hold.
 */

const EASYPOST_SECRET = 'whsec-easypost-journey-test';
const databases: TestDatabase[] = [];
afterEach(printServerProcessesIfFailed);
afterAll(async () => {
  await killServerProcesses();
  await Promise.all(databases.map((database) => database.drop()));
});

interface Received {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, any>;
}

/** A tracker.updated event as EasyPost sends it, signed as EasyPost signs it (HMAC-SHA256 hex of the raw body). */
function easyPostTrackerUpdated(trackingCode: string, details: { status: string; datetime: string; city: string }[]) {
  const body = JSON.stringify({
    id: `evt_${trackingCode}x${details.length}`,
    object: 'Event',
    description: 'tracker.updated',
    mode: 'production',
    result: {
      id: `trk_${trackingCode}`,
      object: 'Tracker',
      tracking_code: trackingCode,
      carrier: 'FedEx',
      status: details.at(-1)?.status ?? 'unknown',
      est_delivery_date: '2026-12-03T18:00:00Z',
      tracking_details: details.map((d) => ({
        object: 'TrackingDetail',
        status: d.status,
        message: `Package ${d.status.replace(/_/g, ' ')}`,
        datetime: d.datetime,
        tracking_location: { object: 'TrackingLocation', city: d.city, state: 'CA', country: 'US', zip: null },
      })),
    },
  });
  const signature = `hmac-sha256-hex=${createHmac('sha256', EASYPOST_SECRET.normalize('NFKD')).update(body).digest('hex')}`;
  return { body, signature };
}

describe.each(DIALECTS)('the shipment journey over HTTP on %s', { timeout: 90_000 }, (dialect) => {
  it('ships in two packages, follows one by the operator API and one by EasyPost, delivers the order when both arrive, and sends the events in sequence to the endpoints that take them', async () => {
    const database = await createTestDatabase(dialect);
    databases.push(database);
    const server = await startServerProcess({
      DATABASE_URL: databaseUrlOf(database),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      EASYPOST_WEBHOOK_SECRET: EASYPOST_SECRET,
      // The log returns the events as soon as they are made (its settling window: test/events/event-log.test.ts).
      EVENT_LOG_SETTLE_MS: '0',
    });
    const { clinicId, apiKey } = sandboxCredentials(server);
    const everything = await WebhookReceiver.start([{ status: 200, body: 'ok' }]);
    const deliveredOnly = await WebhookReceiver.start([{ status: 200, body: 'ok' }]);
    try {
      const call = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
        const res = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const json = (await res.json()) as { data: any };
        if (res.status !== 200 && res.status !== 201)
          throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
        return json;
      };
      const partner = (method: string, path: string, body?: unknown) => call(method, path, body, { 'x-api-key': apiKey });
      const pharmacy = (path: string, body?: unknown) => call('POST', path, body, { authorization: `Bearer ${OPERATOR_TOKEN}` });
      const carrier = async (trackingCode: string, details: { status: string; datetime: string; city: string }[]) => {
        const { body, signature } = easyPostTrackerUpdated(trackingCode, details);
        const res = await fetch(`${server.baseUrl}/api/carrier-events/easypost`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hmac-signature': signature },
          body,
        });
        const answer = (await res.json()) as { data: { outcome: string } };
        expect(res.status, JSON.stringify(answer)).toBe(200);
        return answer.data.outcome;
      };
      // Every scan happens after its package left (its first event) and before now: the server refuses the future.
      const moment = () => new Date().toISOString();

      const { secret } = (await partner('POST', '/api/external/webhook', { clinic_id: clinicId, webhook_url: everything.url() }))
        .data;
      const deliveredSecret = (
        await partner('POST', '/api/external/webhook', {
          clinic_id: clinicId,
          webhook_url: deliveredOnly.url(),
          event_types: ['order.delivered'],
        })
      ).data.secret;
      const practitionerId = (await partner('POST', '/api/external/practitioner', practitionerBody(clinicId))).data
        .practitioner_id;
      const order = async () => {
        const patientId = (
          await partner('POST', '/api/external/patient', patientBody(clinicId, { practitioner_id: practitionerId }))
        ).data.patient_id;
        const id = (
          await partner('POST', '/api/external/medication-order', {
            patient_id: patientId,
            practitioner_id: practitionerId,
            clinic_id: clinicId,
            carrier_id: 'fedex',
            service_id: 'fedex_ground',
            medication_requests: [{ medication: 'Semaglutide', dose: '0.25mg', quantity: 1, direction: 'Inject weekly' }],
          })
        ).data.medication_request_id as string;
        await pharmacy(`/api/admin/medication-requests/${id}/status`, { status: 'processing' });
        return id;
      };

      // Two packages: the first made by marking the order shipped, the second added by the pharmacy.
      const orderId = await order();
      await pharmacy(`/api/admin/medication-requests/${orderId}/status`, { status: 'shipped', tracking_number: '794612345678' });
      await pharmacy(`/api/admin/medication-requests/${orderId}/shipments`, { tracking_number: '794612345679' });
      const shipped = (await partner('GET', `/api/external/medication-order/${orderId}`)).data;
      expect(shipped.tracking_number).toBe('794612345678');
      expect(shipped.shipments.map((s: any) => s.tracking_number)).toEqual(['794612345678', '794612345679']);
      const [first, second] = shipped.shipments as any[];
      expect(first.tracking_url).toContain('794612345678');

      // The first package's journey by the operator API.
      const events = `/api/admin/medication-requests/${orderId}/shipments/${first.shipment_id}/events`;
      await pharmacy(events, { status: 'out_for_delivery', occurred_at: moment(), location: 'Memphis, TN' });
      await pharmacy(events, { status: 'delivered', occurred_at: moment(), location: 'Sacramento, CA' });
      expect((await partner('GET', `/api/external/medication-order/${orderId}`)).data.status).toBe('shipped');

      // The second package's by EasyPost, the last body sent twice, as a replay: nothing changes the second time.
      const outForDelivery = { status: 'out_for_delivery', datetime: moment(), city: 'Memphis' };
      expect(await carrier('794612345679', [outForDelivery])).toBe('applied');
      const deliveredAt = moment();
      const delivery = [outForDelivery, { status: 'delivered', datetime: deliveredAt, city: 'Sacramento' }];
      expect(await carrier('794612345679', delivery)).toBe('applied');
      expect(await carrier('794612345679', delivery)).toBe('unchanged');

      const delivered = (await partner('GET', `/api/external/medication-order/${orderId}`)).data;
      expect(delivered.status).toBe('delivered');
      expect(delivered.delivered_at).toBe(deliveredAt);
      expect(delivered.shipments.map((s: any) => s.status)).toEqual(['delivered', 'delivered']);
      expect(delivered.shipments[1].shipment_id).toBe(second.shipment_id);
      expect(delivered.shipments[1].events.map((e: any) => e.status)).toEqual(
        expect.arrayContaining(['in_transit', 'out_for_delivery', 'delivered']),
      );

      // Every event of the order, verified, in sequence order: shipment.updated for each status
      // change of each package, and order.delivered last.
      const all = await waitForType(everything, secret, orderId, 'order.delivered');
      const ofOrder = all
        .filter((e) => e.data.medication_request_id === orderId)
        .sort((a, b) => a.data.sequence - b.data.sequence);
      const sequences = ofOrder.map((e) => e.data.sequence);
      expect(sequences).toEqual(sequences.map((_, i) => i + 1));
      // The first package is announced by order.fulfilled, the second by its own shipment.updated.
      expect(ofOrder.map((e) => e.type)).toEqual([
        'order.created',
        'order.fulfilled',
        'shipment.updated',
        'shipment.updated',
        'shipment.updated',
        'shipment.updated',
        'shipment.updated',
        'order.delivered',
      ]);
      const updates = ofOrder.filter((e) => e.type === 'shipment.updated');
      expect(updates.map((e) => [e.data.tracking_number, e.data.status])).toEqual([
        ['794612345679', 'in_transit'],
        ['794612345678', 'out_for_delivery'],
        ['794612345678', 'delivered'],
        ['794612345679', 'out_for_delivery'],
        ['794612345679', 'delivered'],
      ]);
      const bodies = everything.received.map((r) => r.body).join('\n');
      for (const text of ['Memphis', 'Sacramento']) expect(bodies).not.toContain(text);

      // The endpoint that takes only order.delivered got exactly that.
      const onlyDelivered = (await waitForType(deliveredOnly, deliveredSecret, orderId, 'order.delivered')).map((e) => e.type);
      expect(new Set(onlyDelivered)).toEqual(new Set(['order.delivered']));

      // The event log: the same events, with the webhook ids of their deliveries.
      const logged: Received[] = [];
      let after: string | undefined;
      for (let page = 0; page < 20; page++) {
        const page = (await partner('GET', `/api/external/events?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`))
          .data as { items: Received[]; next_cursor: string };
        logged.push(...page.items);
        if (page.items.length === 0) break;
        after = page.next_cursor;
      }
      const loggedOfOrder = logged.filter((e) => e.data.medication_request_id === orderId);
      expect(loggedOfOrder.map((e) => e.id).sort()).toEqual(ofOrder.map((e) => e.id).sort());
      expect(loggedOfOrder.map((e) => e.data.sequence)).toEqual(sequences);

      // An exception reported by the carrier puts another order on hold, waiting on the partner.
      const other = await order();
      await pharmacy(`/api/admin/medication-requests/${other}/status`, { status: 'shipped', tracking_number: '794612345680' });
      expect(await carrier('794612345680', [{ status: 'return_to_sender', datetime: moment(), city: 'Memphis' }])).toBe(
        'applied',
      );
      const held = (await partner('GET', `/api/external/medication-order/${other}`)).data;
      expect(held.status).toBe('on_hold');
      expect(held.hold).toMatchObject({ reason_code: 'delivery_exception', waiting_on: 'partner' });
      expect(held.shipments[0].status).toBe('returned_to_sender');
    } finally {
      await everything.stop();
      await deliveredOnly.stop();
      await server.stop();
    }
  });
});

/** The receiver's verified events, once one of `type` for the order has arrived. */
async function waitForType(receiver: WebhookReceiver, secret: string, orderId: string, type: string): Promise<Received[]> {
  for (let count = 1; ; count++) {
    await receiver.waitFor(count, 30_000);
    const events = receiver.received.map((request) => ({
      ...(WebhookReceiver.verify(secret, request) as Omit<Received, 'id'>),
      id: String(request.headers['webhook-id']),
    }));
    if (events.some((e) => e.type === type && e.data.medication_request_id === orderId)) return events;
  }
}

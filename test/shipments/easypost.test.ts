import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { easyPostSignature } from '../../src/shipments/easypost-signature.js';
import { listShipmentsWithEvents } from '../../src/shipments/shipment.repository.js';
import { CapturedLogs } from '../helpers/captured-logs.js';
import { createOrder, createOrderSetup, createPatient, expectOk, getOrder, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { trackerUpdated } from './easypost-support.js';

/**
 * EasyPost's tracker.updated over HTTP, on both databases (issue 31, item 2): an order shipped
 * through the operator API, then signed Events posted as EasyPost posts them, read back in the
 * partner's order read. The receiver's refusals that touch no data: easypost-receiver.test.ts.
 */
const PATH = '/api/carrier-events/easypost';
const SECRET = 'easypost-e2e-webhook-secret-456789';

describe.each(DIALECTS)('EasyPost tracker.updated on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const logs = new CapturedLogs();
  let now = Date.parse('2030-03-01T00:00:00.000Z');
  const clock = () => new Date((now += 1000));
  let eventCount = 0;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock, logStream: logs.stream, env: { EASYPOST_WEBHOOK_SECRET: SECRET } });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  /** A new order of its own patient, shipped by the operator with `trackingNumber` (FedEx, 12 digits). */
  const shippedOrder = async (trackingNumber: string): Promise<string> => {
    const patientId = await createPatient(t, setup.clinic, { practitionerId: setup.practitionerId });
    const orderId = await createOrder(t, { ...setup, patientId });
    for (const body of [{ status: 'processing' }, { status: 'shipped', tracking_number: trackingNumber }]) {
      expectOk(await t.operator.post(`/api/admin/medication-requests/${orderId}/status`, body), `order ${body.status}`);
    }
    return orderId;
  };

  /** Posts `event` signed as EasyPost signs it; the raw answer. */
  const postEvent = async (event: unknown) => {
    const payload = JSON.stringify(event);
    return t.request('POST', PATH, {
      payload,
      headers: { 'content-type': 'application/json', 'x-hmac-signature': easyPostSignature(payload, SECRET) },
    });
  };

  /** A tracker.updated Event of its own id for `trackingNumber` with `details` (oldest first). */
  const eventFor = (
    trackingNumber: string,
    details: Record<string, unknown>[],
    estimate: string | null = '2030-03-05T00:00:00Z',
  ) =>
    trackerUpdated({
      event: { id: `evt_e2e${dialect}${++eventCount}` },
      tracker: { tracking_code: trackingNumber, est_delivery_date: estimate, tracking_details: details },
    });

  const scan = (status: string, datetime: string, message: string, location?: Record<string, unknown>) => ({
    object: 'TrackingDetail',
    status,
    message,
    datetime,
    ...(location ? { tracking_location: { object: 'TrackingLocation', ...location } } : {}),
  });

  /** The order's first shipment with its journey (oldest first), as stored. */
  const shipmentOf = async (orderId: string) => {
    const [first] = (await listShipmentsWithEvents(t.ctx.db, [orderId])).get(orderId) ?? [];
    if (first === undefined) throw new Error(`order ${orderId} has no shipment`);
    return { ...first.shipment, events: first.events };
  };
  /** The order as the partner reads it, and its shipments as stored. */
  const stateOf = async (orderId: string) => ({
    order: await getOrder(t, setup.clinic, orderId),
    shipment: await shipmentOf(orderId),
  });

  it('when a signed tracker.updated names a shipped order\u2019s tracking number, then its shipment moves and the answer says applied', async () => {
    const orderId = await shippedOrder('794612345601');
    const answer = await postEvent(
      eventFor('794612345601', [
        scan('pre_transit', '2030-03-01T15:00:00Z', 'Shipment information sent to FedEx', { country: 'US', zip: '60601' }),
        scan('in_transit', '2030-03-02T09:30:00-05:00', 'Departed FedEx location', {
          city: 'MEMPHIS',
          state: 'TN',
          country: 'US',
          zip: '38118',
        }),
      ]),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.outcome).toBe('applied');
    const shipment = await shipmentOf(orderId);
    expect(shipment).toMatchObject({
      tracking_number: '794612345601',
      status: 'in_transit',
      estimated_delivery_date: '2030-03-05',
    });
    expect(shipment.events).toEqual(
      expect.arrayContaining([
        {
          status: 'in_transit',
          occurred_at: '2030-03-02T14:30:00.000Z',
          location: 'MEMPHIS, TN',
          description: 'Departed FedEx location',
        },
      ]),
    );
    expect(JSON.stringify(shipment)).not.toContain('38118');
  });

  it('when the same Event is posted again, or a later Event repeats its scans, then nothing changes (200 unchanged)', async () => {
    const orderId = await shippedOrder('794612345602');
    const event = eventFor('794612345602', [
      scan('in_transit', '2030-03-02T10:00:00Z', 'Picked up', { city: 'Chicago', state: 'IL' }),
    ]);
    expect((await postEvent(event)).body.data.outcome).toBe('applied');
    const before = await stateOf(orderId);
    const replay = await postEvent(event);
    expect(replay.status).toBe(200);
    expect(replay.body.data).toEqual({ event_id: event.id, outcome: 'unchanged' });
    const repeated = await postEvent({ ...event, id: `${event.id}r` });
    expect(repeated.body.data.outcome).toBe('unchanged');
    expect(await stateOf(orderId)).toEqual(before);
  });

  it('when a tracking event arrives for a delivered shipment, then it is ignored with 200 and the shipment stays delivered', async () => {
    const orderId = await shippedOrder('794612345603');
    const delivered = await postEvent(
      eventFor('794612345603', [
        scan('in_transit', '2030-03-02T10:00:00Z', 'In transit'),
        scan('delivered', '2030-03-03T16:00:00Z', 'Delivered, left at front door'),
      ]),
    );
    expect(delivered.body.data.outcome).toBe('applied');
    const before = await stateOf(orderId);
    expect(before.shipment.status).toBe('delivered');
    expect(before.order.status).toBe('delivered');
    const late = await postEvent(
      eventFor('794612345603', [
        scan('return_to_sender', '2030-03-04T10:00:00Z', 'Returned'),
        scan('in_transit', '2030-03-05T10:00:00Z', 'Odd scan'),
      ]),
    );
    expect(late.status).toBe(200);
    expect(late.body.data.outcome).toBe('unchanged');
    expect(await stateOf(orderId)).toEqual(before);
  });

  it('when EasyPost says available_for_pickup, then the shipment has an exception', async () => {
    const orderId = await shippedOrder('794612345604');
    const answer = await postEvent(
      eventFor('794612345604', [scan('available_for_pickup', '2030-03-03T12:00:00Z', 'Held at FedEx location for pickup')]),
    );
    expect(answer.body.data.outcome).toBe('applied');
    expect((await shipmentOf(orderId)).status).toBe('exception');
  });

  it('when the carrier\u2019s message holds NUL, bidirectional and zero-width characters, then the stored description has none', async () => {
    const orderId = await shippedOrder('794612345605');
    const answer = await postEvent(
      eventFor('794612345605', [
        scan('in_transit', '2030-03-02T11:00:00Z', 'Arrived\u0000 at \u202eFedEx\u200b hub\u2066', {
          city: 'Mem\u0000phis',
          state: 'TN',
        }),
      ]),
    );
    expect(answer.status).toBe(200);
    const event = (await shipmentOf(orderId)).events.find((e) => e.occurred_at === '2030-03-02T11:00:00.000Z');
    expect(event).toMatchObject({ description: 'Arrived at FedEx hub', location: 'Mem phis, TN' });
  });

  it('when no shipment has the tracking code, then 202, nothing is recorded, and one log line says so without the number', async () => {
    const answer = await postEvent(eventFor('794699999999', [scan('in_transit', '2030-03-02T10:00:00Z', 'Ada Byron, 1 Elm St')]));
    expect(answer.status).toBe(202);
    expect(answer.body.data.outcome).toBe('unknown_tracking_number');
    const lines = logs.all().filter((line) => line.msg === 'carrier event for an unknown tracking number');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ carrier: 'easypost', tracking: '…9999' });
    expect(logs.text).not.toContain('794699999999');
    expect(logs.text).not.toContain('Ada Byron');
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { orderBody, type OrderSetup } from '../helpers/factories.js';
import { createSelfSignedCertificate, type SelfSignedCertificate } from '../helpers/self-signed.js';
import { killServerProcesses, type ServerProcess } from '../helpers/server-process.js';
import { freshProcessDatabase, type ProcessDatabase } from '../helpers/process-database.js';
import { DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver, type ReceivedRequest } from '../helpers/webhook-receiver.js';
import { call } from '../instances/support.js';
import { createOrderingPartner, dataOf, startProductionServer } from './partner-server.js';

/**
 * A partner's receiver through an outage (issue 9, item 8): it refuses connections, then answers
 * 503, then stalls past WEBHOOK_TIMEOUT_MS, then recovers; after each phase a recover call (the
 * operator's and the partner's in turn) sends everything again. A production server process with
 * its worker, calling an HTTPS receiver (production sends nowhere else) whose certificate it trusts
 * through NODE_EXTRA_CA_CERTS. Retries are an hour apart: past the first attempt, only a recover
 * call can explain an attempt, so every event that arrives arrived after one.
 */
const WEBHOOK_TIMEOUT_MS = 1000;
const RETRY_SCHEDULE = '0,1h,1h,1h,1h';
/** Well under the hour of the schedule, even with its ±10 % jitter. */
const NOT_BEFORE_MS = 30 * 60 * 1000;
/** Checks of `eventually` (100 ms apart) for the attempts of one phase: the stalled one takes seconds. */
const PHASE_CHECKS = 300;

interface Delivery {
  event_id: string;
  event_type: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
}

/** The body of an order event, as Standard Webhooks structures it. */
interface ReceivedEvent {
  type: string;
  data: { medication_request_id: string };
}

/** An event the test caused: its type and order. */
interface ExpectedEvent {
  type: string;
  orderId: string;
}

const dir = mkdtempSync(path.join(tmpdir(), 'fulfillment-hook-faults-'));
let certificate: SelfSignedCertificate;
beforeAll(async () => {
  certificate = await createSelfSignedCertificate(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

for (const dialect of DIALECTS) {
  describe(`a webhook receiver through an outage, on ${dialect}`, { timeout: 60_000 }, () => {
    let database: ProcessDatabase;
    let server: ServerProcess;
    let receiver: WebhookReceiver;
    let partner: OrderSetup;
    let webhookId: string;
    let secret: string;

    beforeAll(async () => {
      receiver = await WebhookReceiver.start([{ status: 200 }], 0, { tls: certificate });
      database = await freshProcessDatabase(dialect, 'webhook-faults');
      server = await startProductionServer(database, {
        RUN_WORKER: 'true',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
        WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE,
        NODE_EXTRA_CA_CERTS: certificate.certFile,
        // The operator moves orders to cause their events: this suite is about the receiver, not the
        // pharmacist's sign-offs a production server otherwise requires first (docs/compounding.md#sign-offs).
        REQUIRE_PHARMACIST_SIGNOFF: 'false',
      });
      partner = await createOrderingPartner(server);
      const registered = dataOf(
        await call(server, 'POST', '/api/external/webhook', {
          apiKey: partner.clinic.apiKey,
          body: { clinic_id: partner.clinic.clinicId, webhook_url: receiver.url() },
        }),
        'register webhook',
      );
      webhookId = registered.webhook_id;
      secret = registered.secret;
    }, 120_000);
    afterAll(async () => {
      await killServerProcesses();
      await receiver.stop();
      await database.drop();
    });

    const partnerCall = (method: string, url: string, body?: unknown) =>
      call(server, method, url, { apiKey: partner.clinic.apiKey, ...(body !== undefined ? { body } : {}) });
    const operatorCall = (url: string, body?: unknown) =>
      call(server, 'POST', url, { operator: true, ...(body !== undefined ? { body } : {}) });

    /**
     * Orders from three partner clients at once, two of them moved on by the operator and one
     * cancelled by the partner: every event type an order has. The events it caused.
     */
    async function causeEvents(): Promise<ExpectedEvent[]> {
      const orderIds = (
        await Promise.all(
          [0, 1, 2].map(async () => {
            const ids: string[] = [];
            for (let i = 0; i < 2; i++) {
              const created = await partnerCall('POST', '/api/external/medication-order', orderBody(partner));
              ids.push(dataOf(created, 'create order').medication_request_id);
            }
            return ids;
          }),
        )
      ).flat();
      const [delivered, shipped, cancelled] = orderIds as [string, string, string];
      const moves: [string, string][] = [
        [delivered, 'processing'],
        [delivered, 'shipped'],
        [delivered, 'delivered'],
        [shipped, 'processing'],
        [shipped, 'shipped'],
      ];
      for (const [orderId, status] of moves) {
        dataOf(
          await operatorCall(`/api/admin/medication-requests/${orderId}/status`, {
            status,
            ...(status === 'shipped' ? { tracking_number: '794612340001' } : {}),
          }),
          `move order to ${status}`,
        );
      }
      dataOf(await partnerCall('POST', `/api/external/medication-order/${cancelled}/cancel`), 'cancel order');
      return [
        ...orderIds.map((orderId) => ({ type: 'order.created', orderId })),
        { type: 'order.fulfilled', orderId: delivered },
        // Delivered by status: its package is delivered first (docs/shipping.md#shipments-and-their-journey).
        { type: 'shipment.updated', orderId: delivered },
        { type: 'order.delivered', orderId: delivered },
        { type: 'order.fulfilled', orderId: shipped },
        { type: 'order.cancelled', orderId: cancelled },
      ];
    }

    async function deliveries(): Promise<Delivery[]> {
      return dataOf(
        await call(server, 'GET', `/api/admin/webhook-deliveries?webhook_id=${webhookId}&limit=100`, { operator: true }),
        'list deliveries',
      ).items;
    }

    /** Awaits the attempts of a phase: every delivery of the `count` events made `attempts` and is in `status`. */
    async function attemptsRecorded(count: number, attempts: number, status: 'pending' | 'delivered'): Promise<Delivery[]> {
      let list: Delivery[] = [];
      await eventually(async () => {
        list = await deliveries();
        return list.length === count && list.every((d) => d.attempt_count === attempts && d.status === status);
      }, PHASE_CHECKS);
      return list;
    }

    /**
     * Recovers the endpoint, by the operator or by the partner, once it is certain that without the
     * call nothing would be attempted for the next half hour at least.
     */
    async function recover(by: 'operator' | 'partner', waiting: Delivery[]): Promise<void> {
      for (const delivery of waiting) {
        expect(Date.parse(delivery.next_attempt_at ?? '')).toBeGreaterThan(Date.now() + NOT_BEFORE_MS);
      }
      const answer =
        by === 'operator'
          ? await operatorCall(`/api/admin/webhook-endpoints/${webhookId}/recover`)
          : await partnerCall('POST', '/api/external/webhook/recover', {
              clinic_id: partner.clinic.clinicId,
              webhook_id: webhookId,
            });
      expect(dataOf(answer, `${by} recover`)).toEqual({ scheduled: waiting.length });
    }

    it('when the receiver refuses connections, then answers 503, then stalls past the timeout, then recovers, then every event arrives after a recover call, signed, and repeated only under its own webhook-id', async () => {
      // Refusing connections: the first attempt of every event fails at once.
      await receiver.stop();
      const expected = await causeEvents();
      const n = expected.length;
      const refused = await attemptsRecorded(n, 1, 'pending');
      for (const delivery of refused) {
        expect(delivery).toMatchObject({ last_response_status: null, last_error: expect.stringContaining('ECONNREFUSED') });
      }
      expect(receiver.received).toHaveLength(0);

      // Answering 503.
      receiver.respondWith({ status: 503, body: 'unavailable' });
      await receiver.restart();
      await recover('operator', refused);
      const unavailable = await attemptsRecorded(n, 2, 'pending');
      for (const delivery of unavailable) expect(delivery.last_response_status).toBe(503);
      expect(receiver.received).toHaveLength(n);

      // Stalling past the timeout: each request arrives whole and is never answered.
      receiver.respondWith({ hang: true });
      await recover('partner', unavailable);
      const stalled = await attemptsRecorded(n, 3, 'pending');
      for (const delivery of stalled) {
        expect(delivery).toMatchObject({ last_response_status: null, last_error: `timed out after ${WEBHOOK_TIMEOUT_MS} ms` });
      }
      expect(receiver.received).toHaveLength(2 * n);

      // Up again: one recover call, and every event arrives.
      receiver.respondWith({ status: 204 });
      const recoveredFrom = receiver.received.length;
      const recoveredAt = new Date().toISOString();
      await recover('operator', stalled);
      const delivered = await attemptsRecorded(n, 4, 'delivered');
      for (const delivery of delivered) expect(delivery.delivered_at! >= recoveredAt).toBe(true);

      // Every request the receiver got verifies as a partner verifies it; grouped by webhook-id, one
      // group per event, repeated only with identical bytes, of the type and order of an event caused.
      const byId = new Map<string, ReceivedRequest[]>();
      for (const request of receiver.received) {
        expect(WebhookReceiver.verify(secret, request)).toEqual(JSON.parse(request.body));
        byId.set(webhookIdOf(request), [...(byId.get(webhookIdOf(request)) ?? []), request]);
      }
      expect(byId.size).toBe(n);
      for (const group of byId.values()) expect(new Set(group.map((request) => request.body)).size).toBe(1);
      const received = [...byId.values()].map(([request]) => JSON.parse(request!.body) as ReceivedEvent);
      expect(sortEvents(received.map((event) => ({ type: event.type, orderId: event.data.medication_request_id })))).toEqual(
        sortEvents(expected),
      );
      expect([...byId.keys()].sort()).toEqual(delivered.map((d) => d.event_id).sort());

      // After the last recover call, each event arrived exactly once (the answers that were 2xx).
      const answered = receiver.received.slice(recoveredFrom);
      expect(answered.map(webhookIdOf).sort()).toEqual([...byId.keys()].sort());
    });
  });
}

function webhookIdOf(request: ReceivedRequest): string {
  return request.headers['webhook-id'] as string;
}

function sortEvents(events: ExpectedEvent[]): ExpectedEvent[] {
  return [...events].sort((a, b) => `${a.type} ${a.orderId}`.localeCompare(`${b.type} ${b.orderId}`));
}

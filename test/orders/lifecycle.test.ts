import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_STATUSES, canTransition, type OrderStatus } from '../../src/orders/order-status.js';
import { advanceOrder, createOrder, createOrderSetup, getOrder, outboxEventsOf, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** The sandbox path that brings a new order to each status. */
const REACH: Record<Exclude<OrderStatus, 'on_hold'>, OrderStatus | null> = {
  pending: null,
  processing: 'processing',
  shipped: 'shipped',
  delivered: 'delivered',
  cancelled: 'cancelled',
};

describe.each(DIALECTS)('order lifecycle on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const setStatus = (id: string, body: Record<string, unknown>) =>
    t.operator.post(`/api/admin/medication-requests/${id}/status`, body);

  async function orderIn(status: OrderStatus): Promise<string> {
    const id = await createOrder(t, setup);
    if (status === 'on_hold') {
      const held = await t.operator.post(`/api/admin/medication-requests/${id}/hold`, {
        reason_code: 'out_of_stock',
        message: 'Waiting for stock',
      });
      expect(held.status).toBe(200);
      return id;
    }
    const to = REACH[status];
    if (to) await advanceOrder(t, setup.clinic, id, to);
    return id;
  }

  async function snapshot(id: string) {
    const order = await t.ctx.db.selectFrom('medication_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const history = await t.ctx.db
      .selectFrom('medication_request_status_history')
      .selectAll()
      .where('medication_request_id', '=', id)
      .execute();
    return { order, history: history.length, events: (await outboxEventsOf(t, id)).length };
  }

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  it('when the pharmacy moves an order through its whole life, then every step is stored with its history, times and events', async () => {
    const id = await createOrder(t, setup);
    const processing = await setStatus(id, { status: 'processing' });
    expect(processing.status).toBe(200);
    expect(processing.body.data.status).toBe('processing');
    const shipped = await setStatus(id, { status: 'shipped', tracking_number: '123456789012' });
    expect(shipped.status).toBe(200);
    expect(shipped.body.data).toMatchObject({ status: 'shipped', tracking_number: '123456789012' });
    expect(shipped.body.data.shipped_at).toEqual(expect.any(String));
    const delivered = await setStatus(id, { status: 'delivered' });
    expect(delivered.status).toBe(200);

    const order = await getOrder(t, setup.clinic, id);
    expect(order.status).toBe('delivered');
    expect(order.delivered_at).toEqual(expect.any(String));
    expect(order.cancelled_at).toBeNull();
    expect(order.status_history.map((h: { from: string | null; to: string; actor: string }) => [h.from, h.to, h.actor])).toEqual([
      [null, 'pending', 'partner'],
      ['pending', 'processing', 'operator'],
      ['processing', 'shipped', 'operator'],
      ['shipped', 'delivered', 'operator'],
    ]);
    const events = await outboxEventsOf(t, id);
    // Delivering the order by status delivers its shipment too (docs/shipping.md#shipments-and-their-journey).
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.fulfilled', 'shipment.updated', 'order.delivered']);
    expect(events[1]?.payload).toEqual({
      medication_request_id: id,
      status: 'shipped',
      tracking_number: '123456789012',
      carrier_id: 'fedex',
      shipped_at: order.shipped_at,
      // A development server fills the unfilled item on shipping (docs/compounding.md#the-fill); no formula, no date.
      items: [{ medication: 'Semaglutide', lot_number: order.medication_requests[0].fill.lot_number, beyond_use_date: null }],
      // The move to processing sends no event: the order's second event is sequence 2.
      sequence: 2,
    });
    // Delivered by status: its package is delivered first, so order.delivered counts last.
    expect(events[2]?.payload).toMatchObject({
      medication_request_id: id,
      status: 'delivered',
      tracking_number: '123456789012',
      sequence: 3,
    });
    expect(events[3]?.payload).toEqual({
      medication_request_id: id,
      status: 'delivered',
      delivered_at: order.delivered_at,
      sequence: 4,
    });
  });

  const ILLEGAL = ORDER_STATUSES.flatMap((from) =>
    ORDER_STATUSES.filter((to) => !canTransition(from, to)).map((to) => [from, to] as [OrderStatus, OrderStatus]),
  );

  it.each(ILLEGAL)(
    'when an order is %s and the pharmacy asks for %s, then 409 names both states and nothing changes',
    async (from, to) => {
      const id = await orderIn(from);
      const before = await snapshot(id);
      const res = await setStatus(id, to === 'shipped' ? { status: to, tracking_number: '123456789012' } : { status: to });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
      expect(res.body.error.message).toContain(`from ${from} to ${to}`);
      expect(await snapshot(id)).toEqual(before);
    },
  );

  it('when the pharmacy ships without a tracking number, then 400 names tracking_number and nothing changes', async () => {
    const id = await orderIn('processing');
    const before = await snapshot(id);
    const res = await setStatus(id, { status: 'shipped' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ tracking_number: 'is required when status is shipped' });
    expect(await snapshot(id)).toEqual(before);
  });

  it('when a tracking number comes with another status, then 400', async () => {
    const id = await orderIn('pending');
    const res = await setStatus(id, { status: 'processing', tracking_number: '123456789012' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ tracking_number: 'is only accepted with status shipped' });
  });

  it('when the operator names an unknown order, then 404', async () => {
    const res = await setStatus('00000000-0000-4000-8000-000000000000', { status: 'processing' });
    expect(res.status).toBe(404);
  });

  it('when the operator token is missing, then 401', async () => {
    const id = await orderIn('pending');
    const res = await t.request('POST', `/api/admin/medication-requests/${id}/status`, {
      headers: { 'content-type': 'application/json' },
      body: { status: 'processing' },
    });
    expect(res.status).toBe(401);
  });

  it.each(['pending', 'processing'] as const)(
    'when the partner cancels a %s order, then it is cancelled with history and event',
    async (from) => {
      const id = await orderIn(from);
      const res = await t.partner(setup.clinic.apiKey).post(`/api/external/medication-order/${id}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe('cancelled');
      expect(res.body.data.cancelled_at).toEqual(expect.any(String));
      expect(res.body.data.status_history.at(-1)).toMatchObject({ from, to: 'cancelled', actor: 'partner' });
      const events = await outboxEventsOf(t, id);
      expect(events.filter((e) => e.type === 'order.cancelled').map((e) => e.payload)).toEqual([
        {
          medication_request_id: id,
          status: 'cancelled',
          previous_status: from,
          cancelled_at: res.body.data.cancelled_at,
          sequence: 2,
        },
      ]);
    },
  );

  it.each(['shipped', 'delivered', 'cancelled'] as const)(
    'when the partner cancels a %s order, then 409 names the state and nothing changes',
    async (from) => {
      const id = await orderIn(from);
      const before = await snapshot(id);
      const res = await t.partner(setup.clinic.apiKey).post(`/api/external/medication-order/${id}/cancel`);
      expect(res.status).toBe(409);
      expect(res.body.error.message).toContain(`from ${from} to cancelled`);
      expect(await snapshot(id)).toEqual(before);
    },
  );

  it('when another clinic reads, cancels or advances an order, then 404 and nothing changes', async () => {
    const id = await orderIn('pending');
    const other = await t.createClinic();
    const api = t.partner(other.apiKey);
    expect((await api.get(`/api/external/medication-order/${id}`)).status).toBe(404);
    expect((await api.post(`/api/external/medication-order/${id}/cancel`)).status).toBe(404);
    expect((await api.post(`/api/external/sandbox/medication-order/${id}/advance`, {})).status).toBe(404);
    expect((await getOrder(t, setup.clinic, id)).status).toBe('pending');
  });

  it('when an unknown order is read, then 404', async () => {
    const res = await t.partner(setup.clinic.apiKey).get('/api/external/medication-order/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe('Medication request not found');
  });

  describe('the sandbox', () => {
    const advance = (id: string, body: unknown = {}) =>
      t.partner(setup.clinic.apiKey).post(`/api/external/sandbox/medication-order/${id}/advance`, body);

    it('when an order is advanced without a target, then it moves one step', async () => {
      const id = await orderIn('pending');
      const res = await advance(id);
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe('processing');
      expect(res.body.data.status_history.at(-1)).toMatchObject({ from: 'pending', to: 'processing', actor: 'sandbox' });
    });

    it('when an order is advanced to delivered, then it goes through every step with a FedEx-format tracking number', async () => {
      const id = await orderIn('pending');
      const res = await advance(id, { to: 'delivered' });
      expect(res.status).toBe(200);
      expect(res.body.data.tracking_number).toMatch(/^\d{12}$/);
      expect(res.body.data.status_history.map((h: { to: string; actor: string }) => `${h.to}:${h.actor}`)).toEqual([
        'pending:partner',
        'processing:sandbox',
        'shipped:sandbox',
        'delivered:sandbox',
      ]);
      expect((await outboxEventsOf(t, id)).map((e) => e.type)).toEqual([
        'order.created',
        'order.fulfilled',
        'shipment.updated',
        'order.delivered',
      ]);
    });

    it.each([
      ['ups', 'ups_ground', /^1Z[0-9A-Z]{16}$/],
      ['usps', 'usps_priority', /^\d{22}$/],
    ])(
      'when a %s order ships in the sandbox, then its tracking number has the carrier\u2019s format',
      async (carrier, service, format) => {
        const id = await createOrder(t, setup, { carrier_id: carrier, service_id: service });
        const data = await advanceOrder(t, setup.clinic, id, 'shipped');
        expect(data.tracking_number).toMatch(format);
      },
    );

    it('when a delivered order is advanced, then 409 says it is final', async () => {
      const id = await orderIn('delivered');
      const res = await advance(id);
      expect(res.status).toBe(409);
      expect(res.body.error.message).toContain('delivered, a final state');
    });

    it('when the target cannot be reached, then 409 names both states and nothing changes', async () => {
      const id = await orderIn('shipped');
      const before = await snapshot(id);
      const res = await advance(id, { to: 'processing' });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toContain('from shipped to processing');
      expect(await snapshot(id)).toEqual(before);
    });

    it('when the target is not a status, then 400', async () => {
      const id = await orderIn('pending');
      const res = await advance(id, { to: 'teleported' });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual(['to']);
    });

    it('when the server is the production environment, then the sandbox routes answer 404', async () => {
      const prod = await TestApp.start({ dialect, env: { FULFILLMENT_ENV: 'production' } });
      try {
        const clinic = await prod.createClinic();
        expect(clinic.apiKey.startsWith('prod_')).toBe(true);
        const res = await prod
          .partner(clinic.apiKey)
          .post('/api/external/sandbox/medication-order/00000000-0000-4000-8000-000000000000/advance', {});
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      } finally {
        await prod.close();
      }
    });
  });
});

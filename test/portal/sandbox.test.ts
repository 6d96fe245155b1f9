import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder, createOrderSetup, outboxEventsOf, type OrderSetup } from '../helpers/factories.js';
import { portalSignIn } from '../helpers/portal.js';
import { TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

const NOBODY = '00000000-0000-4000-8000-000000000000';

describe.each(DIALECTS)('the portal’s sandbox on %s', (dialect) => {
  const clock = fakeClock(Date.parse('2031-05-06T09:00:00.000Z'));
  let t: TestApp;
  let setup: OrderSetup;
  let otherSetup: OrderSetup;
  let developer: Record<string, string>;
  let viewer: Record<string, string>;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock });
    setup = await createOrderSetup(t);
    otherSetup = await createOrderSetup(t, { clinicName: 'Other Clinic' });
    developer = (await portalSignIn(t, setup.clinic.clinicId, 'developer')).headers;
    viewer = (await portalSignIn(t, setup.clinic.clinicId, 'viewer')).headers;
  });
  afterAll(async () => t.close());

  const list = (query = '', headers = viewer): Promise<Reply> =>
    t.request('GET', `/api/portal/sandbox/orders${query}`, { headers });
  const advance = (orderId: string, body: unknown, headers = developer): Promise<Reply> =>
    t.request('POST', `/api/portal/sandbox/orders/${orderId}/advance`, {
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    });
  const newOrder = async (s: OrderSetup = setup): Promise<string> => {
    clock.advance(1_000);
    return createOrder(t, s);
  };
  const statusOf = async (orderId: string) =>
    (await t.ctx.db.selectFrom('medication_requests').select('status').where('id', '=', orderId).executeTakeFirstOrThrow())
      .status;

  it('when a viewer lists the sandbox, then it sees its clinic’s orders newest first with what each may become next, a page at a time', async () => {
    const first = await newOrder();
    const second = await newOrder();
    const third = await newOrder();
    await newOrder(otherSetup);

    const page = await list('?limit=2');
    expect(page.status).toBe(200);
    expect(page.body.data.items).toEqual([
      {
        order_id: third,
        status: 'pending',
        patient_id: setup.patientId,
        created_at: expect.any(String),
        tracking_number: null,
        next_statuses: ['processing', 'cancelled'],
        hold: null,
      },
      expect.objectContaining({ order_id: second }),
    ]);
    const rest = await list(`?limit=2&cursor=${page.body.data.next_cursor}`);
    expect(rest.body.data).toEqual({ items: [expect.objectContaining({ order_id: first })], next_cursor: null });
  });

  it('when a developer advances an order to shipped, then it goes through processing, gets a tracking number, and order.fulfilled is in the outbox', async () => {
    const orderId = await newOrder();
    const res = await advance(orderId, { status: 'shipped' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ order_id: orderId, status: 'shipped', next_statuses: ['delivered'] });
    expect(res.body.data.tracking_number).toMatch(/^\S{12,}$/);
    const events = await outboxEventsOf(t, orderId);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.fulfilled']);
    expect(events[1]?.payload).toMatchObject({ status: 'shipped', tracking_number: res.body.data.tracking_number });
    expect(events[1]?.clinic_id).toBe(setup.clinic.clinicId);
    const history = await t.ctx.db
      .selectFrom('medication_request_status_history')
      .select(['to_status', 'actor'])
      .where('medication_request_id', '=', orderId)
      .orderBy('at')
      .execute();
    expect(history.map((h) => `${h.to_status} ${h.actor}`)).toEqual(['pending partner', 'processing sandbox', 'shipped sandbox']);
    const listed = (await list()).body.data.items.find((o: { order_id: string }) => o.order_id === orderId);
    expect(listed).toMatchObject({ status: 'shipped', tracking_number: res.body.data.tracking_number });
    const audit = await t.ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('resource_id', '=', orderId)
      .where('action', '=', 'transition')
      .execute();
    expect(audit.map((r) => r.actor_type)).toEqual(['partner_user']);
  });

  it('when the status cannot be reached by the sandbox’s rules, then 409 names the status and nothing changes', async () => {
    const orderId = await newOrder();
    expect((await advance(orderId, { status: 'delivered' })).status).toBe(200);
    const res = await advance(orderId, { status: 'cancelled' });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toHaveProperty('status');
    expect(await statusOf(orderId)).toBe('delivered');
    const unknown = await advance(orderId, { status: 'teleported' });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.error.details)).toEqual(['status']);
    const bad = await t.request('GET', '/api/portal/sandbox/orders?limit=0', { headers: viewer });
    expect(Object.keys(bad.body.error.details)).toEqual(['limit']);
  });

  it('when a viewer advances an order, then 403 and the order does not move', async () => {
    const orderId = await newOrder();
    const res = await advance(orderId, { status: 'processing' }, viewer);
    expect(res.status).toBe(403);
    expect(await statusOf(orderId)).toBe('pending');
    expect((await outboxEventsOf(t, orderId)).map((e) => e.type)).toEqual(['order.created']);
  });

  it('when a developer advances another clinic’s order or an unknown one, then 404 and the order does not move', async () => {
    const theirs = await newOrder(otherSetup);
    for (const id of [theirs, NOBODY]) {
      const res = await advance(id, { status: 'processing' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect(await statusOf(theirs)).toBe('pending');
    // The attempt at the other clinic's order is in the trail (an id of no clinic is not).
    const denied = await t.ctx.db
      .selectFrom('audit_events')
      .select(['actor_type', 'clinic_id', 'resource_id', 'resource_clinic_id'])
      .where('action', '=', 'access_denied')
      .execute();
    expect(denied).toEqual([
      {
        actor_type: 'partner_user',
        clinic_id: setup.clinic.clinicId,
        resource_id: theirs,
        resource_clinic_id: otherSetup.clinic.clinicId,
      },
    ]);
  });

  const holdIt = (orderId: string, body: unknown, headers = developer): Promise<Reply> =>
    t.request('POST', `/api/portal/sandbox/orders/${orderId}/hold`, {
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    });
  const resume = (orderId: string, headers = developer): Promise<Reply> => {
    const { 'content-type': _json, ...withoutBody } = headers;
    return t.request('POST', `/api/portal/sandbox/orders/${orderId}/resume`, { headers: withoutBody });
  };

  it('when a developer puts a processing order on hold and resumes it, then the list shows the hold, the events are written, and it is back to processing', async () => {
    const orderId = await newOrder();
    expect((await advance(orderId, { status: 'processing' })).status).toBe(200);
    const held = await holdIt(orderId, { reason_code: 'address_undeliverable' });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(held.body.data).toMatchObject({
      order_id: orderId,
      status: 'on_hold',
      hold: { reason_code: 'address_undeliverable', waiting_on: 'partner', message: expect.stringMatching(/\S/) },
    });
    const listed = (await list()).body.data.items.find((o: { order_id: string }) => o.order_id === orderId);
    expect(listed).toMatchObject({ status: 'on_hold', hold: { reason_code: 'address_undeliverable' } });
    const holds = await t.request('GET', '/api/portal/holds', { headers: viewer });
    expect(holds.body.data.items.map((i: { medication_request_id: string }) => i.medication_request_id)).toContain(orderId);

    const resumed = await resume(orderId);
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.data).toMatchObject({ order_id: orderId, status: 'processing', hold: null });
    expect(resumed.body.data.next_statuses).toEqual(['shipped', 'cancelled']);
    const events = await outboxEventsOf(t, orderId);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.on_hold', 'order.resumed']);
    const history = await t.ctx.db
      .selectFrom('medication_request_status_history')
      .select(['from_status', 'to_status', 'kind', 'actor'])
      .where('medication_request_id', '=', orderId)
      .orderBy('at')
      .orderBy('id')
      .execute();
    expect(history.map((h) => `${h.from_status ?? 'null'} → ${h.to_status} ${h.kind ?? 'move'} ${h.actor}`)).toEqual([
      'null → pending move partner',
      'pending → processing move sandbox',
      'processing → on_hold hold sandbox',
      'on_hold → processing resume sandbox',
    ]);
    const audit = await t.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'actor_type'])
      .where('resource_id', '=', orderId)
      .where('action', 'in', ['hold', 'resume'])
      .orderBy('at')
      .execute();
    expect(audit).toEqual([
      { action: 'hold', actor_type: 'partner_user' },
      { action: 'resume', actor_type: 'partner_user' },
    ]);
  });

  it('when a developer holds with other, then waiting_on is taken; an unknown reason is 400 naming reason_code', async () => {
    const orderId = await newOrder();
    const unknown = await holdIt(orderId, { reason_code: 'teleported' });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.error.details)).toEqual(['reason_code']);
    const held = await holdIt(orderId, { reason_code: 'other', waiting_on: 'pharmacy', message: 'Checking the stock' });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(held.body.data.hold).toMatchObject({ reason_code: 'other', waiting_on: 'pharmacy', message: 'Checking the stock' });
  });

  it('when a developer holds an order already on hold, then its hold changes; a shipped order’s hold, or a resume of an order not on hold, is 409 and nothing changes', async () => {
    const orderId = await newOrder();
    expect((await resume(orderId)).status).toBe(409);
    expect(await statusOf(orderId)).toBe('pending');
    expect((await holdIt(orderId, { reason_code: 'out_of_stock' })).status).toBe(200);
    const changed = await holdIt(orderId, { reason_code: 'patient_unreachable' });
    expect(changed.status).toBe(200);
    expect(changed.body.data.hold).toMatchObject({ reason_code: 'patient_unreachable', waiting_on: 'partner' });
    expect((await resume(orderId)).body.data.status).toBe('pending');
    const shipped = await newOrder();
    expect((await advance(shipped, { status: 'shipped' })).status).toBe(200);
    expect((await holdIt(shipped, { reason_code: 'out_of_stock' })).status).toBe(409);
    expect(await statusOf(shipped)).toBe('shipped');
  });

  it('when a viewer holds or resumes, then 403; another clinic’s order is 404; and the orders do not move', async () => {
    const orderId = await newOrder();
    expect((await holdIt(orderId, { reason_code: 'out_of_stock' }, viewer)).status).toBe(403);
    expect(await statusOf(orderId)).toBe('pending');
    expect((await holdIt(orderId, { reason_code: 'out_of_stock' })).status).toBe(200);
    expect((await resume(orderId, viewer)).status).toBe(403);
    expect(await statusOf(orderId)).toBe('on_hold');
    const theirs = await newOrder(otherSetup);
    expect((await holdIt(theirs, { reason_code: 'out_of_stock' })).status).toBe(404);
    expect((await resume(theirs)).status).toBe(404);
    expect(await statusOf(theirs)).toBe('pending');
  });
});

describe.each(DIALECTS)('the portal’s sandbox in production on %s', (dialect) => {
  it('when the server is the production environment, then the sandbox routes answer 404 to a signed-in developer', async () => {
    const t = await TestApp.start({ dialect, env: { FULFILLMENT_ENV: 'production' } });
    try {
      const clinic = await t.createClinic();
      const { headers } = await portalSignIn(t, clinic.clinicId, 'developer');
      expect((await t.request('GET', '/api/portal/overview', { headers })).body.data.environment).toBe('production');
      const listed = await t.request('GET', '/api/portal/sandbox/orders', { headers });
      expect(listed.status).toBe(404);
      const advanced = await t.request('POST', `/api/portal/sandbox/orders/${NOBODY}/advance`, {
        headers: { ...headers, 'content-type': 'application/json' },
        body: { status: 'processing' },
      });
      expect(advanced.status).toBe(404);
      expect(advanced.body.error.code).toBe('NOT_FOUND');
      for (const change of ['hold', 'resume']) {
        const refused = await t.request('POST', `/api/portal/sandbox/orders/${NOBODY}/${change}`, {
          headers: { ...headers, 'content-type': 'application/json' },
          body: { reason_code: 'other' },
        });
        expect(refused.status).toBe(404);
      }
    } finally {
      await t.close();
    }
  });
});

import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  advanceOrder,
  createOrder,
  createOrderSetup,
  orderBody,
  outboxEventsOf,
  requestRefill,
  type OrderSetup,
} from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('order events in the outbox on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const triggers: { name: string; table: string }[] = [];

  /** Makes every insert into `table` (matching `when`, an SQL condition on NEW) fail inside its transaction. */
  async function failInsertsInto(table: string, when?: string): Promise<void> {
    const name = `fail_${table}_${triggers.length}`;
    if (dialect === 'sqlite') {
      await sql
        .raw(
          `create trigger ${name} before insert on ${table} ${when ? `when ${when}` : ''} begin select raise(abort, 'forced failure'); end`,
        )
        .execute(t.ctx.db);
    } else {
      await sql
        .raw(
          `create or replace function forced_failure() returns trigger language plpgsql as $$ begin raise exception 'forced failure'; end $$`,
        )
        .execute(t.ctx.db);
      await sql
        .raw(
          `create trigger ${name} before insert on ${table} for each row ${when ? `when (${when})` : ''} execute function forced_failure()`,
        )
        .execute(t.ctx.db);
    }
    triggers.push({ name, table });
  }

  const countRows = async (table: 'outbox_events' | 'medication_requests' | 'refill_requests') =>
    (await t.ctx.db.selectFrom(table).select('id').execute()).length;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterEach(async () => {
    for (const { name, table } of triggers.splice(0)) {
      await sql.raw(dialect === 'sqlite' ? `drop trigger ${name}` : `drop trigger ${name} on ${table}`).execute(t.ctx.db);
    }
  });
  afterAll(async () => t.close());

  it('when an order is created, shipped, delivered and refilled, then each change wrote its events and refused changes none', async () => {
    const id = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, id, 'delivered');
    // Refused changes: a second delivery, a cancellation, a step past the end.
    expect((await t.operator.post(`/api/admin/medication-requests/${id}/status`, { status: 'delivered' })).status).toBe(409);
    expect((await t.partner(setup.clinic.apiKey).post(`/api/external/medication-order/${id}/cancel`)).status).toBe(409);
    expect((await t.partner(setup.clinic.apiKey).post(`/api/external/sandbox/medication-order/${id}/advance`, {})).status).toBe(
      409,
    );
    // Delivering by status delivers the package too (docs/shipping.md#shipments-and-their-journey).
    expect((await outboxEventsOf(t, id)).map((e) => e.type)).toEqual([
      'order.created',
      'order.fulfilled',
      'shipment.updated',
      'order.delivered',
    ]);

    const refill = await requestRefill(t, setup.clinic, id);
    expect(
      (await t.partner(setup.clinic.apiKey).post('/api/external/refill-request', { medication_request_id: id })).status,
    ).toBe(400);
    await t.partner(setup.clinic.apiKey).post(`/api/external/medication-order/${refill.medication_order_id}/cancel`);
    expect((await outboxEventsOf(t, refill.medication_order_id)).map((e) => e.type)).toEqual([
      'order.created',
      'refill.ready',
      'order.cancelled',
    ]);
  });

  it('when the processing step (which partners are not told of) happens, then no event is written', async () => {
    const id = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, id, 'processing');
    expect((await outboxEventsOf(t, id)).map((e) => e.type)).toEqual(['order.created']);
  });

  it('when every event is read back, then its payload holds ids and statuses only, never PHI', async () => {
    const id = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, id, 'delivered');
    await requestRefill(t, setup.clinic, id);
    const rows = await t.ctx.db.selectFrom('outbox_events').select(['type', 'payload']).execute();
    // order.fulfilled names what was dispensed by its formulary entry's name (issue 30: `items[].medication`),
    // and nothing else of the order: that one field is taken out before looking for PHI.
    const text = rows
      .map((r) => {
        const payload = JSON.parse(r.payload) as { items?: { medication: string }[] };
        if (r.type === 'order.fulfilled') {
          expect(payload.items?.map((item) => item.medication)).toEqual(['Semaglutide']);
          delete payload.items;
        }
        return JSON.stringify(payload);
      })
      .join('\n');
    for (const phi of [
      'Grace',
      'Hopper',
      '1980-12-09',
      'Elm St',
      'Sacramento',
      '95814',
      'grace@example.com',
      'Inject',
      'Semaglutide',
    ]) {
      expect(text).not.toContain(phi);
    }
  });

  it('when creating an order fails inside its transaction after the event was written, then neither the order nor the event exists', async () => {
    await failInsertsInto('medication_request_status_history');
    const [orders, events] = [await countRows('medication_requests'), await countRows('outbox_events')];
    const res = await t.partner(setup.clinic.apiKey).post('/api/external/medication-order', orderBody(setup));
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL_ERROR');
    expect(await countRows('medication_requests')).toBe(orders);
    expect(await countRows('outbox_events')).toBe(events);
  });

  it('when a transition fails inside its transaction after the event was written, then the order keeps its status and no event exists', async () => {
    const id = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, id, 'processing');
    await failInsertsInto('medication_request_status_history');
    const res = await t.operator.post(`/api/admin/medication-requests/${id}/status`, {
      status: 'shipped',
      tracking_number: '123456789012',
    });
    expect(res.status).toBe(500);
    const order = await t.ctx.db.selectFrom('medication_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(order).toMatchObject({ status: 'processing', tracking_number: null, shipped_at: null });
    expect((await outboxEventsOf(t, id)).map((e) => e.type)).toEqual(['order.created']);
  });

  it('when a sandbox advance fails at its last step, then the earlier steps and their events are rolled back too', async () => {
    const id = await createOrder(t, setup);
    await failInsertsInto('medication_request_status_history', "NEW.to_status = 'delivered'");
    const res = await t
      .partner(setup.clinic.apiKey)
      .post(`/api/external/sandbox/medication-order/${id}/advance`, { to: 'delivered' });
    expect(res.status).toBe(500);
    const order = await t.ctx.db.selectFrom('medication_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(order.status).toBe('pending');
    expect((await outboxEventsOf(t, id)).map((e) => e.type)).toEqual(['order.created']);
  });

  it('when a refill fails inside its transaction after its events were written, then no order, refill, event or refill count remains', async () => {
    const id = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, id, 'shipped');
    await failInsertsInto('refill_requests');
    const [orders, events, refills] = [
      await countRows('medication_requests'),
      await countRows('outbox_events'),
      await countRows('refill_requests'),
    ];
    const res = await t.partner(setup.clinic.apiKey).post('/api/external/refill-request', { medication_request_id: id });
    expect(res.status).toBe(500);
    expect(await countRows('medication_requests')).toBe(orders);
    expect(await countRows('outbox_events')).toBe(events);
    expect(await countRows('refill_requests')).toBe(refills);
    const used = await t.ctx.db
      .selectFrom('medication_items')
      .innerJoin('prescriptions', 'prescriptions.id', 'medication_items.prescription_id')
      .select('medication_items.refills_used')
      .where('prescriptions.medication_request_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(used.refills_used).toBe(0);
  });
});

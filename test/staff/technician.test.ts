import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder, createOrderSetup, expectOk, type OrderSetup } from '../helpers/factories.js';
import { createSignedInStaff, type SignedInStaff } from '../helpers/staff.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * The technician role (issue 39, item 4; docs/console.md#roles) over HTTP: a technician records
 * fills, adds packages and tracking events and reads the queue; signing off, moving or holding an
 * order, the formulary, staff and the audit trail are not theirs. Pharmacists may now add packages
 * and tracking events too.
 */
describe.each(DIALECTS)('the technician role on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  let technician: SignedInStaff;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
    technician = await createSignedInStaff(t, 'technician', 'Tess Technician');
  });
  afterAll(async () => t.close());

  const orderUrl = (id: string) => `/api/admin/medication-requests/${id}`;
  const move = async (id: string, status: string) =>
    expectOk(
      await t.operator.post(
        `${orderUrl(id)}/status`,
        status === 'shipped' ? { status, tracking_number: '123456789012' } : { status },
      ),
      `move to ${status}`,
    );

  /** An order shipped with its first package; the first package's id. */
  async function shippedOrder(): Promise<{ id: string; shipmentId: string }> {
    const id = await createOrder(t, setup);
    await move(id, 'processing');
    const shipped = await move(id, 'shipped');
    return { id, shipmentId: shipped.shipments[0].shipment_id as string };
  }

  const addPackage = (by: SignedInStaff, id: string, trackingNumber: string) =>
    by.post(`${orderUrl(id)}/shipments`, { tracking_number: trackingNumber });
  const addEvent = (by: SignedInStaff, id: string, shipmentId: string) =>
    by.post(`${orderUrl(id)}/shipments/${shipmentId}/events`, {
      status: 'out_for_delivery',
      occurred_at: new Date(t.ctx.clock().getTime() - 60_000).toISOString(),
      location: 'Sacramento, CA',
    });

  it('when an admin creates a technician, then they sign in as one; an unknown role is refused naming the three', async () => {
    const session = await technician.get('/api/admin/session');
    expect(session.body.data).toMatchObject({ name: 'Tess Technician', role: 'technician' });
    const bad = await t.operator.post('/api/admin/staff', {
      email: 'owner@pharmacy.example',
      name: 'Owen Owner',
      role: 'owner',
      password: 'correct horse battery staple',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual({ role: 'must be one of: "admin", "pharmacist", "technician"' });
  });

  it('when a technician works an order, then they read the queue and the order, record the fill, add a package and a tracking event', async () => {
    expect((await technician.get('/api/admin/medication-requests')).status).toBe(200);
    const id = await createOrder(t, setup);
    const processing = await move(id, 'processing');
    const fill = await technician.post(`${orderUrl(id)}/fill`, {
      items: processing.medication_requests.map((item: { id: string }) => ({
        item_id: item.id,
        lot_number: 'TECH-1',
        compounded_at: new Date(t.ctx.clock().getTime() - 3_600_000).toISOString(),
      })),
    });
    expect(fill.status, JSON.stringify(fill.body)).toBe(200);
    const read = expectOk(await technician.get(orderUrl(id)), 'read');
    expect(read.medication_requests[0].fill).toMatchObject({ lot_number: 'TECH-1', filled_by_name: 'Tess Technician' });

    const shipped = await move(id, 'shipped');
    const added = await addPackage(technician, id, '794612345679');
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.data.shipments).toHaveLength(2);
    const event = await addEvent(technician, id, shipped.shipments[0].shipment_id as string);
    expect(event.status, JSON.stringify(event.body)).toBe(200);
  });

  it('when a technician signs off, moves, holds, changes the formulary or staff, or reads the audit trail, then 403 and nothing changes', async () => {
    const id = await createOrder(t, setup);
    const medications = `/api/admin/clinics/${setup.clinic.clinicId}/medications`;
    for (const [method, url, body] of [
      ['POST', `${orderUrl(id)}/signoffs`, { kind: 'prescription_review', checked: ['allergies', 'duplicate_therapy', 'dose'] }],
      ['POST', `${orderUrl(id)}/status`, { status: 'processing' }],
      ['POST', `${orderUrl(id)}/hold`, { reason_code: 'other', message: 'Stop.', waiting_on: 'pharmacy' }],
      ['POST', medications, { name: 'Technicianol' }],
      [
        'POST',
        '/api/admin/staff',
        { email: 'x@pharmacy.example', name: 'X Y', role: 'admin', password: 'correct horse battery staple' },
      ],
      ['GET', '/api/admin/audit-events', undefined],
    ] as const) {
      const res = method === 'GET' ? await technician.get(url) : await technician.post(url, body);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error.message, `${method} ${url}`).toMatch(
        /^This action needs the admin( or pharmacist)? role; you are signed in as technician$/,
      );
    }
    const order = expectOk(await t.operator.get(orderUrl(id)), 'read');
    expect(order).toMatchObject({ status: 'pending', signoffs: [] });
    const formulary = expectOk(await t.operator.get(medications), 'formulary');
    expect(JSON.stringify(formulary)).not.toContain('Technicianol');
  });

  it('when a pharmacist adds a package and a tracking event (issue 39), then both are theirs to add', async () => {
    const pharmacist = await createSignedInStaff(t, 'pharmacist', 'Phil Shipper');
    const { id, shipmentId } = await shippedOrder();
    const added = await addPackage(pharmacist, id, '794612345680');
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const event = await addEvent(pharmacist, id, shipmentId);
    expect(event.status, JSON.stringify(event.body)).toBe(200);
  });
});

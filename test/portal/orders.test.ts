import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyCarrierTracking } from '../../src/shipments/carrier-tracking.service.js';
import { advanceOrder, createOrder, createOrderSetup, createPatient, getOrder, type OrderSetup } from '../helpers/factories.js';
import { portalSignIn } from '../helpers/portal.js';
import { TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

const NOBODY = '00000000-0000-4000-8000-000000000000';

/** The portal's order read (issue 31: the order's journey in the portal). */
describe.each(DIALECTS)('the portal’s order read on %s', (dialect) => {
  const clock = fakeClock(Date.parse('2031-05-06T09:00:00.000Z'));
  let t: TestApp;
  let setup: OrderSetup;
  let otherSetup: OrderSetup;
  let viewer: Record<string, string>;
  let viewerId = '';

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock });
    setup = await createOrderSetup(t);
    otherSetup = await createOrderSetup(t, { clinicName: 'Other Clinic' });
    const signedIn = await portalSignIn(t, setup.clinic.clinicId, 'viewer');
    viewer = signedIn.headers;
    viewerId = signedIn.user.partnerUserId;
  });
  afterAll(async () => t.close());

  const read = (orderId: string, headers = viewer): Promise<Reply> =>
    t.request('GET', `/api/portal/orders/${orderId}`, { headers });
  const newOrder = async (s: OrderSetup = setup): Promise<string> => {
    clock.advance(1_000);
    return createOrder(t, s);
  };
  const auditRows = (action: string, resourceId: string) =>
    t.ctx.db
      .selectFrom('audit_events')
      .select(['actor_type', 'actor_id', 'clinic_id', 'resource_type', 'resource_id', 'resource_clinic_id'])
      .where('action', '=', action)
      .where('resource_id', '=', resourceId)
      .execute();

  it('when a viewer reads an order of its clinic, then it gets exactly the partner API’s view, and the read is audited as the viewer’s', async () => {
    const orderId = await newOrder();
    const res = await read(orderId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual(await getOrder(t, setup.clinic, orderId));
    const reads = await auditRows('read', orderId);
    expect(reads).toContainEqual({
      actor_type: 'partner_user',
      actor_id: viewerId,
      clinic_id: setup.clinic.clinicId,
      resource_type: 'medication_request',
      resource_id: orderId,
      resource_clinic_id: null,
    });
  });

  it('when a viewer reads another clinic’s order or an unknown one, then 404 alike, and only the other clinic’s is in the trail as access_denied', async () => {
    const theirs = await newOrder(otherSetup);
    const answers = await Promise.all([read(theirs), read(NOBODY)]);
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect(answers[0].body.error.message).toBe(answers[1].body.error.message);
    expect(await auditRows('access_denied', theirs)).toEqual([
      {
        actor_type: 'partner_user',
        actor_id: viewerId,
        clinic_id: setup.clinic.clinicId,
        resource_type: 'medication_request',
        resource_id: theirs,
        resource_clinic_id: otherSetup.clinic.clinicId,
      },
    ]);
    expect(await auditRows('access_denied', NOBODY)).toEqual([]);
  });

  it('when the id is not a UUID or nobody is signed in, then 400 naming orderId, and 401', async () => {
    const bad = await read('not-an-id');
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details)).toEqual(['orderId']);
    const orderId = await newOrder();
    const anonymous = await t.request('GET', `/api/portal/orders/${orderId}`);
    expect(anonymous.status).toBe(401);
  });

  it('when a carrier’s exception puts a shipped order on hold, then "Needs your answer" lists it, held from shipped, and the order read shows its hold', async () => {
    // Its own patient: a second order of one patient's medication would be held for duplicate therapy.
    const patientId = await createPatient(t, setup.clinic);
    const orderId = await newOrder({ ...setup, patientId });
    clock.advance(1_000);
    const shipped = await advanceOrder(t, setup.clinic, orderId, 'shipped');
    clock.advance(1_000);
    const outcome = await applyCarrierTracking(t.ctx, {
      tracking_number: shipped.tracking_number,
      events: [{ status: 'exception', occurred_at: clock.clock().toISOString(), location: null, description: null }],
      estimated_delivery_date: null,
    });
    expect(outcome).toBe('applied');

    const holds = await t.request('GET', '/api/portal/holds', { headers: viewer });
    expect(holds.status).toBe(200);
    const listed = holds.body.data.items.find(
      (item: { medication_request_id: string }) => item.medication_request_id === orderId,
    );
    expect(listed).toMatchObject({ held_from: 'shipped', hold: { reason_code: 'delivery_exception', waiting_on: 'partner' } });
    expect(holds.body.data.waiting_on_partner).toBe(
      holds.body.data.items.filter((item: { hold: { waiting_on: string } }) => item.hold.waiting_on === 'partner').length,
    );
    const view = await read(orderId);
    expect(view.body.data).toMatchObject({ status: 'on_hold', hold: { reason_code: 'delivery_exception' } });
  });
});

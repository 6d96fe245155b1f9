// Over 250 lines: who may sign, what each sign-off needs and the gate on the moves share one setup per database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder, createOrderSetup, expectOk, type OrderSetup } from '../helpers/factories.js';
import { createSignedInStaff, type SignedInStaff } from '../helpers/staff.js';
import { TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

/**
 * The pharmacist's sign-offs by the person (issues 30 and 39, item 3; docs/compounding.md#sign-offs),
 * over HTTP: only the pharmacist signed in as themselves signs (not the operator token, not an admin,
 * not a technician); a review records its three checks; the final check waits for every item's fill
 * and, with REQUIRE_INDEPENDENT_CHECK, for a pharmacist who filled none of them; the gate
 * REQUIRE_PHARMACIST_SIGNOFF puts on the moves to `processing` and `shipped`.
 */
const CHECKED = ['allergies', 'duplicate_therapy', 'dose'];
const REVIEW = { kind: 'prescription_review', checked: CHECKED };

describe.each(DIALECTS)('sign-offs by the person on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const clock = fakeClock();

  beforeAll(async () => {
    t = await TestApp.start({
      dialect,
      clock: clock.clock,
      env: { REQUIRE_PHARMACIST_SIGNOFF: 'true', REQUIRE_INDEPENDENT_CHECK: 'true' },
    });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  const url = (id: string) => `/api/admin/medication-requests/${id}/signoffs`;
  const move = (id: string, status: string) =>
    t.operator.post(
      `/api/admin/medication-requests/${id}/status`,
      status === 'shipped' ? { status, tracking_number: '123456789012' } : { status },
    );
  const signoffRows = (id: string) =>
    t.ctx.db.selectFrom('order_signoffs').selectAll().where('medication_request_id', '=', id).execute();

  /** Fills every item of the order, as `by` (a signed-in staff member) or with the operator token. */
  async function fillAll(id: string, by?: SignedInStaff): Promise<Reply> {
    const order = expectOk(await t.operator.get(`/api/admin/medication-requests/${id}`), 'read order');
    const body = {
      items: order.medication_requests.map((item: { id: string }, i: number) => ({
        item_id: item.id,
        lot_number: `LOT-${i}-${id.slice(-6)}`,
        compounded_at: new Date(clock.now() - 3_600_000).toISOString(),
      })),
    };
    const path = `/api/admin/medication-requests/${id}/fill`;
    return by ? by.post(path, body) : t.operator.post(path, body);
  }

  /** An order reviewed by `reviewer` and moved to `processing`. */
  async function processingOrder(reviewer: SignedInStaff): Promise<string> {
    const id = await createOrder(t, setup);
    expectOk(await reviewer.post(url(id), REVIEW), 'review');
    expectOk(await move(id, 'processing'), 'process');
    return id;
  }

  it('when a pharmacist reviews from the console with the three checks, then it is recorded with their name, the checks and the time, and audited', async () => {
    const pharmacist = await createSignedInStaff(t, 'pharmacist', 'Rita Reviewer');
    const id = await createOrder(t, setup);
    const res = await pharmacist.post(url(id), {
      kind: 'prescription_review',
      checked: ['dose', 'allergies', 'duplicate_therapy'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      signoff_id: expect.any(String),
      kind: 'prescription_review',
      checked: CHECKED,
      pharmacist_id: pharmacist.staffId,
      pharmacist_name: 'Rita Reviewer',
      at: new Date(clock.now()).toISOString(),
    });
    const audit = await t.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'actor_id'])
      .where('resource_id', '=', id)
      .where('action', '=', 'sign_off')
      .execute();
    expect(audit).toEqual([{ action: 'sign_off', actor_id: pharmacist.staffId }]);
  });

  it('when a review leaves out a check, then 400 names checked and what is missing; a final check with a list is refused too', async () => {
    const pharmacist = await createSignedInStaff(t, 'pharmacist', 'Carl Checks');
    const id = await createOrder(t, setup);
    for (const body of [{ kind: 'prescription_review' }, { kind: 'prescription_review', checked: ['allergies', 'dose'] }]) {
      const res = await pharmacist.post(url(id), body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual(['checked']);
    }
    const partial = await pharmacist.post(url(id), { kind: 'prescription_review', checked: ['allergies', 'dose'] });
    expect(partial.body.error.details.checked).toContain('missing: duplicate_therapy');
    const twice = await pharmacist.post(url(id), { kind: 'prescription_review', checked: ['dose', 'dose', 'allergies'] });
    expect(twice.status).toBe(400);
    const finalWithList = await pharmacist.post(url(id), { kind: 'final_check', checked: CHECKED });
    expect(finalWithList.status).toBe(400);
    expect(Object.keys(finalWithList.body.error.details)).toEqual(['checked']);
    expect(await signoffRows(id)).toEqual([]);
  });

  it('when a pharmacist names someone else, then 400 names pharmacist_id; naming themselves is accepted', async () => {
    const pharmacist = await createSignedInStaff(t, 'pharmacist', 'Sam Self');
    const other = await createSignedInStaff(t, 'pharmacist', 'Olive Other');
    const id = await createOrder(t, setup);
    const res = await pharmacist.post(url(id), { ...REVIEW, pharmacist_id: other.staffId });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toEqual(['pharmacist_id']);
    expect(await signoffRows(id)).toEqual([]);
    expect((await pharmacist.post(url(id), { ...REVIEW, pharmacist_id: pharmacist.staffId })).status).toBe(200);
  });

  it('when the operator token signs, naming a pharmacist or not, then 403 says the token acts for no person and nothing is recorded', async () => {
    const pharmacist = await createSignedInStaff(t, 'pharmacist', 'Tia Token');
    const id = await createOrder(t, setup);
    for (const body of [REVIEW, { ...REVIEW, pharmacist_id: pharmacist.staffId }]) {
      const res = await t.operator.post(url(id), body);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'FORBIDDEN',
        message: 'Only a pharmacist signed in as themselves may sign off an order: the operator token acts for no person',
      });
    }
    expect(await signoffRows(id)).toEqual([]);
  });

  it('when an admin signs in the console, naming a pharmacist or not, then 403 says they are an admin and nothing is recorded', async () => {
    const admin = await createSignedInStaff(t, 'admin', 'Ann Admin');
    const pharmacist = await createSignedInStaff(t, 'pharmacist', 'Pia Pharmacist');
    const id = await createOrder(t, setup);
    for (const body of [REVIEW, { ...REVIEW, pharmacist_id: pharmacist.staffId }]) {
      const res = await admin.post(url(id), body);
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain('you are signed in as admin');
    }
    expect(await signoffRows(id)).toEqual([]);
  });

  it('when a technician signs, then the route is not theirs (403 naming the roles that may) and nothing is recorded', async () => {
    const technician = await createSignedInStaff(t, 'technician', 'Ted Tech');
    const id = await createOrder(t, setup);
    const res = await technician.post(url(id), REVIEW);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe('This action needs the admin or pharmacist role; you are signed in as technician');
    expect(await signoffRows(id)).toEqual([]);
  });

  it('when the final check is given before every item is filled, then 409 names each unfilled item; once filled, another pharmacist gives it', async () => {
    const reviewer = await createSignedInStaff(t, 'pharmacist', 'Fay Filler');
    const checker = await createSignedInStaff(t, 'pharmacist', 'Chad Checker');
    const id = await processingOrder(reviewer);
    const order = expectOk(await t.operator.get(`/api/admin/medication-requests/${id}`), 'read');
    const first = order.medication_requests[0] as { id: string; medication: string };

    const early = await checker.post(url(id), { kind: 'final_check' });
    expect(early.status).toBe(409);
    expect(early.body.error.message).toContain(`${first.medication} (item ${first.id})`);
    expect(early.body.error.details['medication_requests[0].fill']).toContain('must be filled before the final check');

    expectOk(await fillAll(id, reviewer), 'fill');
    const res = await checker.post(url(id), { kind: 'final_check' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ kind: 'final_check', checked: null, pharmacist_name: 'Chad Checker' });
  });

  it('when the pharmacist who recorded the fill gives the final check (REQUIRE_INDEPENDENT_CHECK), then 403 names their fill and nothing is recorded', async () => {
    const filler = await createSignedInStaff(t, 'pharmacist', 'Sol Solo');
    const id = await processingOrder(filler);
    expectOk(await fillAll(id, filler), 'fill');
    const res = await filler.post(url(id), { kind: 'final_check' });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('REQUIRE_INDEPENDENT_CHECK');
    expect(res.body.error.details).toEqual({
      kind: 'final_check is given by a pharmacist who recorded none of the order’s fills',
    });
    expect((await signoffRows(id)).map((row) => row.kind)).toEqual(['prescription_review']);
  });

  it('when the fill was recorded by a technician or the operator token, then a pharmacist who filled nothing may give the final check', async () => {
    const pharmacist = await createSignedInStaff(t, 'pharmacist', 'Nia Nofill');
    const technician = await createSignedInStaff(t, 'technician', 'Tom Tech');
    const byTechnician = await processingOrder(pharmacist);
    expectOk(await fillAll(byTechnician, technician), 'fill by technician');
    expect((await pharmacist.post(url(byTechnician), { kind: 'final_check' })).status).toBe(200);

    // A fill by the token names nobody: it does not make the pharmacist its filler.
    const byToken = await processingOrder(pharmacist);
    expectOk(await fillAll(byToken), 'fill by token');
    expect((await pharmacist.post(url(byToken), { kind: 'final_check' })).status).toBe(200);
  });

  it('when a body still says product_check (1.2.0), then it is the final check: recorded and answered as final_check', async () => {
    const reviewer = await createSignedInStaff(t, 'pharmacist', 'Olga Oldname');
    const checker = await createSignedInStaff(t, 'pharmacist', 'Pete Product');
    const id = await processingOrder(reviewer);
    expectOk(await fillAll(id, reviewer), 'fill');
    const res = await checker.post(url(id), { kind: 'product_check' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.kind).toBe('final_check');
    expect((await signoffRows(id)).map((row) => row.kind).sort()).toEqual(['final_check', 'prescription_review']);
    const again = await checker.post(url(id), { kind: 'final_check' });
    expect(again.status).toBe(409);
  });

  it('when sign-offs are required, then each move waits for its sign-off (409 naming it) and the order history shows both', async () => {
    const reviewer = await createSignedInStaff(t, 'pharmacist', 'Pat Reviewer');
    const checker = await createSignedInStaff(t, 'pharmacist', 'Quinn Checker');
    const id = await createOrder(t, setup);

    const early = await move(id, 'processing');
    expect(early.status).toBe(409);
    expect(early.body.error.details).toEqual({ prescription_review: 'is not signed off; required before processing' });
    expect((await checker.post(url(id), { kind: 'final_check' })).status).toBe(409);

    expect((await reviewer.post(url(id), REVIEW)).status).toBe(200);
    expect((await move(id, 'processing')).status).toBe(200);
    expectOk(await fillAll(id, reviewer), 'fill');

    const unchecked = await move(id, 'shipped');
    expect(unchecked.status).toBe(409);
    expect(unchecked.body.error.details).toEqual({ final_check: 'is not signed off; required before shipped' });
    clock.advance(60_000);
    expect((await checker.post(url(id), { kind: 'final_check' })).status).toBe(200);
    expect((await move(id, 'shipped')).status).toBe(200);

    const detail = await t.operator.get(`/api/admin/medication-requests/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data.signoffs).toEqual([
      expect.objectContaining({ kind: 'prescription_review', checked: CHECKED, pharmacist_name: 'Pat Reviewer' }),
      expect.objectContaining({ kind: 'final_check', pharmacist_name: 'Quinn Checker', at: new Date(clock.now()).toISOString() }),
    ]);
    expect((await reviewer.post(url(id), REVIEW)).status).toBe(409);
  });

  it('when the same sign-off is sent twice, then the second is refused with 409 and one row stays', async () => {
    const pharmacist = await createSignedInStaff(t, 'pharmacist', 'Dee Duplicate');
    const id = await createOrder(t, setup);
    expect((await pharmacist.post(url(id), REVIEW)).status).toBe(200);
    const again = await pharmacist.post(url(id), REVIEW);
    expect(again.status).toBe(409);
    expect(again.body.error.details).toEqual({ kind: 'prescription_review is already signed off' });
    expect(await signoffRows(id)).toHaveLength(1);
  });

  it('when an order is cancelled, then it takes no sign-off (409)', async () => {
    const pharmacist = await createSignedInStaff(t, 'pharmacist', 'Cal Cancelled');
    const id = await createOrder(t, setup);
    expect((await move(id, 'cancelled')).status).toBe(200);
    const res = await pharmacist.post(url(id), REVIEW);
    expect(res.status).toBe(409);
    expect(await signoffRows(id)).toEqual([]);
  });
});

describe.each(DIALECTS)('sign-offs not required on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  it('when REQUIRE_PHARMACIST_SIGNOFF is off (development default), then the pharmacy moves an order without sign-offs', async () => {
    expect(t.ctx.config.requirePharmacistSignoff).toBe(false);
    const id = await createOrder(t, setup);
    const base = `/api/admin/medication-requests/${id}/status`;
    expect((await t.operator.post(base, { status: 'processing' })).status).toBe(200);
    expect((await t.operator.post(base, { status: 'shipped', tracking_number: '123456789012' })).status).toBe(200);
    const detail = await t.operator.get(`/api/admin/medication-requests/${id}`);
    expect(detail.body.data.signoffs).toEqual([]);
  });

  it('when REQUIRE_INDEPENDENT_CHECK is off (development default), then the pharmacist who filled may give the final check', async () => {
    expect(t.ctx.config.requireIndependentCheck).toBe(false);
    const pharmacist = await createSignedInStaff(t, 'pharmacist', 'Ola Own');
    const id = await createOrder(t, setup);
    const moved = expectOk(
      await t.operator.post(`/api/admin/medication-requests/${id}/status`, { status: 'processing' }),
      'process',
    );
    const items = moved.medication_requests.map((item: { id: string }) => ({
      item_id: item.id,
      lot_number: 'OWN-1',
      compounded_at: '2020-01-01T00:00:00Z',
    }));
    expectOk(await pharmacist.post(`/api/admin/medication-requests/${id}/fill`, { items }), 'fill');
    const res = await pharmacist.post(`/api/admin/medication-requests/${id}/signoffs`, { kind: 'final_check' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});

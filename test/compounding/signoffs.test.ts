import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder, createOrderSetup, type OrderSetup } from '../helpers/factories.js';
import { TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

/**
 * The pharmacist's two sign-offs (issue 30, item 5; docs/compounding.md#sign-offs), over HTTP: who
 * may sign, with which pharmacist named, when, and the gate REQUIRE_PHARMACIST_SIGNOFF puts on the
 * pharmacy's moves to `processing` and `shipped`.
 */
const HOST = 'console.example';
const ORIGIN = `http://${HOST}`;
const PASSWORD = 'correct horse battery staple';

describe.each(DIALECTS)('pharmacist sign-offs on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const clock = fakeClock();
  let people = 0;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock, env: { REQUIRE_PHARMACIST_SIGNOFF: 'true' } });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  async function createStaff(role: 'admin' | 'pharmacist', name: string): Promise<{ staffId: string; cookie: string }> {
    const email = `signer${++people}@pharmacy.example`;
    const made = await t.operator.post('/api/admin/staff', { email, name, role, password: PASSWORD });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const signedIn = await t.request('POST', '/api/admin/session', {
      headers: { host: HOST, origin: ORIGIN, 'content-type': 'application/json' },
      body: { email, password: PASSWORD },
    });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    return { staffId: made.body.data.staff_id, cookie: String(signedIn.headers['set-cookie']).split(';')[0] ?? '' };
  }

  const asStaff = (cookie: string, url: string, body: unknown): Promise<Reply> =>
    t.request('POST', url, { headers: { host: HOST, origin: ORIGIN, cookie, 'content-type': 'application/json' }, body });
  const signOff = (id: string, body: Record<string, unknown>) =>
    t.operator.post(`/api/admin/medication-requests/${id}/signoffs`, body);
  const move = (id: string, status: string) =>
    t.operator.post(
      `/api/admin/medication-requests/${id}/status`,
      status === 'shipped' ? { status, tracking_number: '123456789012' } : { status },
    );
  const signoffRows = (id: string) =>
    t.ctx.db.selectFrom('order_signoffs').selectAll().where('medication_request_id', '=', id).execute();

  it('when a pharmacist signs the review from the console, then it is recorded with their name and the time, and audited', async () => {
    const pharmacist = await createStaff('pharmacist', 'Rita Reviewer');
    const id = await createOrder(t, setup);
    const res = await asStaff(pharmacist.cookie, `/api/admin/medication-requests/${id}/signoffs`, {
      kind: 'prescription_review',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      signoff_id: expect.any(String),
      kind: 'prescription_review',
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

  it('when a pharmacist names someone else, then 400 names pharmacist_id and nothing is recorded', async () => {
    const pharmacist = await createStaff('pharmacist', 'Sam Self');
    const other = await createStaff('pharmacist', 'Olive Other');
    const id = await createOrder(t, setup);
    const res = await asStaff(pharmacist.cookie, `/api/admin/medication-requests/${id}/signoffs`, {
      kind: 'prescription_review',
      pharmacist_id: other.staffId,
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toEqual(['pharmacist_id']);
    expect(await signoffRows(id)).toEqual([]);
  });

  it('when the operator token signs without pharmacist_id, then 400 names pharmacist_id and nothing is recorded', async () => {
    const id = await createOrder(t, setup);
    const res = await signOff(id, { kind: 'prescription_review' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.pharmacist_id).toContain('is required');
    expect(await signoffRows(id)).toEqual([]);
  });

  it('when the operator token names an admin, an unknown id or a disabled pharmacist, then 400 names pharmacist_id', async () => {
    const admin = await createStaff('admin', 'Ada Admin');
    const gone = await createStaff('pharmacist', 'Gus Gone');
    expect((await t.operator.post(`/api/admin/staff/${gone.staffId}/disable`, {})).status).toBe(200);
    const id = await createOrder(t, setup);
    for (const pharmacistId of [admin.staffId, gone.staffId, '00000000-0000-4000-8000-000000000000']) {
      const res = await signOff(id, { kind: 'prescription_review', pharmacist_id: pharmacistId });
      expect(res.status, pharmacistId).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual(['pharmacist_id']);
    }
    expect(await signoffRows(id)).toEqual([]);
  });

  it('when an admin signs in the console without pharmacist_id, then 400; naming a pharmacist, then it is theirs', async () => {
    const admin = await createStaff('admin', 'Ann Admin');
    const pharmacist = await createStaff('pharmacist', 'Pia Pharmacist');
    const id = await createOrder(t, setup);
    const url = `/api/admin/medication-requests/${id}/signoffs`;
    expect((await asStaff(admin.cookie, url, { kind: 'prescription_review' })).status).toBe(400);
    const res = await asStaff(admin.cookie, url, { kind: 'prescription_review', pharmacist_id: pharmacist.staffId });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ pharmacist_id: pharmacist.staffId, pharmacist_name: 'Pia Pharmacist' });
  });

  it('when sign-offs are required, then each move waits for its sign-off (409 naming it) and the order history shows both', async () => {
    const pharmacist = await createStaff('pharmacist', 'Pat Checker');
    const id = await createOrder(t, setup);

    const early = await move(id, 'processing');
    expect(early.status).toBe(409);
    expect(early.body.error.details).toEqual({ prescription_review: 'is not signed off; required before processing' });
    const checkTooSoon = await signOff(id, { kind: 'product_check', pharmacist_id: pharmacist.staffId });
    expect(checkTooSoon.status).toBe(409);

    expect((await signOff(id, { kind: 'prescription_review', pharmacist_id: pharmacist.staffId })).status).toBe(200);
    expect((await move(id, 'processing')).status).toBe(200);

    const unchecked = await move(id, 'shipped');
    expect(unchecked.status).toBe(409);
    expect(unchecked.body.error.details).toEqual({ product_check: 'is not signed off; required before shipped' });
    clock.advance(60_000);
    expect((await signOff(id, { kind: 'product_check', pharmacist_id: pharmacist.staffId })).status).toBe(200);
    expect((await move(id, 'shipped')).status).toBe(200);

    const detail = await t.operator.get(`/api/admin/medication-requests/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data.signoffs).toEqual([
      expect.objectContaining({ kind: 'prescription_review', pharmacist_name: 'Pat Checker' }),
      expect.objectContaining({ kind: 'product_check', pharmacist_name: 'Pat Checker', at: new Date(clock.now()).toISOString() }),
    ]);
    const late = await signOff(id, { kind: 'prescription_review', pharmacist_id: pharmacist.staffId });
    expect(late.status).toBe(409);
  });

  it('when the same sign-off is sent twice, then the second is refused with 409 and one row stays', async () => {
    const pharmacist = await createStaff('pharmacist', 'Dee Duplicate');
    const id = await createOrder(t, setup);
    const body = { kind: 'prescription_review', pharmacist_id: pharmacist.staffId };
    expect((await signOff(id, body)).status).toBe(200);
    const again = await signOff(id, body);
    expect(again.status).toBe(409);
    expect(again.body.error.details).toEqual({ kind: 'prescription_review is already signed off' });
    expect(await signoffRows(id)).toHaveLength(1);
  });

  it('when an order is cancelled, then it takes no sign-off (409)', async () => {
    const pharmacist = await createStaff('pharmacist', 'Cal Cancelled');
    const id = await createOrder(t, setup);
    expect((await move(id, 'cancelled')).status).toBe(200);
    const res = await signOff(id, { kind: 'prescription_review', pharmacist_id: pharmacist.staffId });
    expect(res.status).toBe(409);
    expect(await signoffRows(id)).toEqual([]);
  });

  it('when a pharmacist signs in, then the sign-off route is theirs to call', async () => {
    const pharmacist = await createStaff('pharmacist', 'Rae Roles');
    const id = await createOrder(t, setup);
    const res = await asStaff(pharmacist.cookie, `/api/admin/medication-requests/${id}/signoffs`, { kind: 'product_check' });
    // Not 403: the role may call it; the order is pending, so the check waits (409).
    expect(res.status).toBe(409);
  });
});

describe.each(DIALECTS)('pharmacist sign-offs not required on %s', (dialect) => {
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
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { STATES_AND_DC } from '../../src/shipping/licensed-states.js';
import { startBanner } from '../../src/start-banner.js';
import { advanceOrder, createOrder, createOrderSetup, orderBody, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** Where the pharmacy may ship (issue 30, item 7; docs/shipping.md#licensed-states). The fixtures' patient lives in CA. */
describe.each(DIALECTS)('licensed states on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  const setStates = async (states: unknown) => t.operator.put('/api/admin/licensed-states', { states });
  const order = async () => t.partner(setup.clinic.apiKey).post('/api/external/medication-order', orderBody(setup));
  const services = async () =>
    t.partner(setup.clinic.apiKey).get(`/api/external/carriers/fedex/services?patientId=${setup.patientId}`);

  describe('in development, never set', () => {
    it('when the list was never set, then the partner reads all 50 states and DC, marked the default', async () => {
      const res = await t.partner(setup.clinic.apiKey).get('/api/external/licensed-states');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ states: [...STATES_AND_DC].sort(), is_default: true, updated_at: null });
      expect(res.body.data.states).toHaveLength(51);
      expect(res.body.data.states).toContain('DC');
      expect(res.body.data.states).not.toContain('PR');
    });

    it('when the list was never set, then an order for a CA patient is taken and the services read says licensed', async () => {
      expect((await order()).status).toBe(200);
      expect((await services()).body.licensed).toBe(true);
    });
  });

  describe('once set', () => {
    beforeEach(async () => {
      expect((await setStates(['NY', 'TX'])).status).toBe(200);
    });

    it('when the operator sets the list, then codes are upper-cased, de-duplicated, sorted, audited, and both reads show it', async () => {
      const res = await setStates(['tx', 'NY', 'TX', ' ny ']);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ states: ['NY', 'TX'], is_default: false });
      expect(typeof res.body.data.updated_at).toBe('string');
      expect((await t.operator.get('/api/admin/licensed-states')).body.data.states).toEqual(['NY', 'TX']);
      expect((await t.partner(setup.clinic.apiKey).get('/api/external/licensed-states')).body.data.states).toEqual(['NY', 'TX']);
      const audits = await t.ctx.db
        .selectFrom('audit_events')
        .select(['action', 'resource_id'])
        .where('resource_type', '=', 'licensed_states')
        .execute();
      expect(audits.length).toBeGreaterThan(0);
      expect(audits.every((a) => a.action === 'update' && a.resource_id === 'pharmacy')).toBe(true);
    });

    it('when the patient’s state is not licensed, then the order is refused with 400 STATE_NOT_LICENSED naming the state, and nothing is stored', async () => {
      const before = await t.ctx.db.selectFrom('medication_requests').select('id').execute();
      const res = await order();
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        success: false,
        error: { code: 'STATE_NOT_LICENSED', details: { state: 'CA' }, request_id: expect.any(String) },
      });
      expect(res.body.error.message).toContain('CA');
      expect(await t.ctx.db.selectFrom('medication_requests').select('id').execute()).toHaveLength(before.length);
    });

    it('when the patient’s state is not licensed, then the carrier services read says licensed: false, with its prices', async () => {
      const res = await services();
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ licensed: false, patientState: 'California' });
      expect(res.body.data.length).toBeGreaterThan(0);
    });

    it('when the operator adds the patient’s state, then the next order is taken and the services read says licensed', async () => {
      expect((await setStates(['CA', 'NY'])).status).toBe(200);
      expect((await order()).status).toBe(200);
      expect((await services()).body.licensed).toBe(true);
    });

    it('when the operator sets an empty list, then the pharmacy ships nowhere', async () => {
      expect((await setStates([])).body.data).toMatchObject({ states: [], is_default: false });
      expect((await order()).body.error.code).toBe('STATE_NOT_LICENSED');
    });

    it('when a refill is asked for a patient whose state is no longer licensed, then 400 STATE_NOT_LICENSED and no new order', async () => {
      expect((await setStates(['CA'])).status).toBe(200);
      const id = await createOrder(t, setup);
      await advanceOrder(t, setup.clinic, id, 'shipped');
      expect((await setStates(['NY'])).status).toBe(200);
      const res = await t.partner(setup.clinic.apiKey).post('/api/external/refill-request', { medication_request_id: id });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'STATE_NOT_LICENSED', details: { state: 'CA' } });
      const refills = await t.ctx.db.selectFrom('medication_requests').select('id').where('refill_of', '=', id).execute();
      expect(refills).toHaveLength(0);
      expect((await setStates(['CA'])).status).toBe(200);
      expect(
        (await t.partner(setup.clinic.apiKey).post('/api/external/refill-request', { medication_request_id: id })).status,
      ).toBe(200);
    });
  });

  describe('bad input', () => {
    it('when a code is unknown, then 400 naming states and the list is unchanged', async () => {
      expect((await setStates(['NY'])).status).toBe(200);
      const res = await setStates(['NY', 'XX']);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.states).toContain('XX');
      expect((await t.operator.get('/api/admin/licensed-states')).body.data.states).toEqual(['NY']);
    });

    it.each([
      ['no states field', {}],
      ['states not an array', { states: 'CA' }],
      ['too many codes', { states: Array.from({ length: 101 }, () => 'CA') }],
      ['a code that is not a string', { states: [7] }],
    ])('when the body has %s, then 400 naming states', async (_what, body) => {
      const res = await t.operator.put('/api/admin/licensed-states', body);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(JSON.stringify(res.body.error.details)).toContain('states');
    });

    it('when a partner key calls the operator route, then 401, and without a key the partner route is 401', async () => {
      const res = await t.request('PUT', '/api/admin/licensed-states', {
        headers: { 'x-api-key': setup.clinic.apiKey, 'content-type': 'application/json' },
        body: { states: ['CA'] },
      });
      expect(res.status).toBe(401);
      expect((await t.request('GET', '/api/external/licensed-states')).status).toBe(401);
    });
  });
});

describe.each(DIALECTS)('licensed states in production on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: { FULFILLMENT_ENV: 'production' } });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  it('when a production server never had its list set, then it lists none, refuses orders with STATE_NOT_LICENSED and says so in the banner', async () => {
    const list = await t.partner(setup.clinic.apiKey).get('/api/external/licensed-states');
    expect(list.body.data).toEqual({ states: [], is_default: true, updated_at: null });
    const res = await t.partner(setup.clinic.apiKey).post('/api/external/medication-order', orderBody(setup));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'STATE_NOT_LICENSED', details: { state: 'CA' } });
    const services = await t
      .partner(setup.clinic.apiKey)
      .get(`/api/external/carriers/fedex/services?patientId=${setup.patientId}`);
    expect(services.body.licensed).toBe(false);
    const facts = { port: 3000, tls: false, hasStaff: true, tokenFile: null, sandbox: null };
    expect(startBanner(t.ctx.config, { ...facts, licensedStatesSet: false })).toContain('no licensed states are set');
    expect(startBanner(t.ctx.config, { ...facts, licensedStatesSet: true })).not.toContain('no licensed states are set');
  });

  it('when the operator sets the list in production, then orders for those states are taken', async () => {
    expect((await t.operator.put('/api/admin/licensed-states', { states: ['CA'] })).status).toBe(200);
    expect((await t.partner(setup.clinic.apiKey).post('/api/external/medication-order', orderBody(setup))).status).toBe(200);
  });
});

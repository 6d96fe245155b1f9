import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/admin/cli-commands.js';
import { executeCommand } from '../../src/admin/cli-execute.js';
import { createOrder, createOrderSetup, getOrder } from '../helpers/factories.js';
import { TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

/**
 * Named people everywhere (issue 21, item 3): every change made in the console, with the operator
 * token or at the command line names who made it, in an order's history (the pharmacy's view only)
 * and in the audit trail.
 */
const HOST = 'console.example';
const OWN_ORIGIN = `http://${HOST}`;
const PASSWORD = 'correct horse battery staple';

describe.each(DIALECTS)('named actors on %s', (dialect) => {
  let t: TestApp;
  const time = fakeClock(Date.parse('2030-05-01T09:00:00.000Z'));
  let staff: { staffId: string; name: string; email: string; cookie: string };
  let emails = 0;

  /** A staff member of `role`, signed in: their id, name and session cookie. */
  async function signedInStaff(name: string, role: 'admin' | 'pharmacist' = 'admin') {
    const email = `named${++emails}@pharmacy.example`;
    const created = await t.operator.post('/api/admin/staff', { email, name, role, password: PASSWORD });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const signedIn = await t.request('POST', '/api/admin/session', {
      headers: { host: HOST, origin: OWN_ORIGIN, 'content-type': 'application/json' },
      body: { email, password: PASSWORD },
    });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0] ?? '';
    return { staffId: created.body.data.staff_id as string, name, email, cookie };
  }

  /** A console request by `who`: the cookie, the host and (for a change) the console's own Origin. */
  function asStaff(who: { cookie: string }, method: string, url: string, body?: unknown): Promise<Reply> {
    return t.request(method, url, {
      headers: {
        host: HOST,
        cookie: who.cookie,
        accept: 'application/json',
        ...(method === 'GET' ? {} : { origin: OWN_ORIGIN }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body,
    });
  }

  const ok = (res: Reply, what: string) => {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };

  /** The trail's page for `query`, asked with the operator token, its own reads included. */
  async function trail(query: string): Promise<any[]> {
    await t.ctx.audit.flush();
    return ok(await t.operator.get(`/api/admin/audit-events?include_own_reads=true&${query}`), query).items;
  }

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock });
    staff = await signedInStaff('Jane Doe');
  });
  afterAll(async () => t.close());

  describe('an order\u2019s status history', () => {
    it('when a staff member changes an order\u2019s status, then the pharmacy\u2019s view of the history and the trail name them', async () => {
      const setup = await createOrderSetup(t);
      const orderId = await createOrder(t, setup);
      ok(await asStaff(staff, 'POST', `/api/admin/medication-requests/${orderId}/status`, { status: 'processing' }), 'move');

      const detail = ok(await t.operator.get(`/api/admin/medication-requests/${orderId}`), 'detail');
      expect(detail.status_history).toEqual([
        { from: null, to: 'pending', at: expect.any(String), actor: 'partner', actor_id: null, actor_name: null, reason: null },
        {
          from: 'pending',
          to: 'processing',
          at: expect.any(String),
          actor: 'operator',
          actor_id: staff.staffId,
          actor_name: 'Jane Doe',
          reason: null,
        },
      ]);
      const [transition] = await trail(`resource_id=${orderId}&action=transition`);
      expect(transition).toMatchObject({
        actor: { type: 'staff', staff_id: staff.staffId, email: staff.email, name: 'Jane Doe' },
        actor_name: 'Jane Doe',
      });
    });

    it('when a partner reads an order a staff member moved, then its history names no one, as before', async () => {
      const setup = await createOrderSetup(t);
      const orderId = await createOrder(t, setup);
      ok(await asStaff(staff, 'POST', `/api/admin/medication-requests/${orderId}/status`, { status: 'processing' }), 'move');
      const order = await getOrder(t, setup.clinic, orderId);
      expect(order.status_history.at(-1)).toEqual({
        from: 'pending',
        to: 'processing',
        at: expect.any(String),
        actor: 'operator',
      });
    });

    it('when the operator token changes an order\u2019s status, then the history and the trail name the operator token as such', async () => {
      const setup = await createOrderSetup(t);
      const orderId = await createOrder(t, setup);
      ok(await t.operator.post(`/api/admin/medication-requests/${orderId}/status`, { status: 'cancelled' }), 'cancel');
      const detail = ok(await t.operator.get(`/api/admin/medication-requests/${orderId}`), 'detail');
      expect(detail.status_history.at(-1)).toMatchObject({
        to: 'cancelled',
        actor: 'operator',
        actor_id: null,
        actor_name: 'Operator token',
      });
      const [transition] = await trail(`resource_id=${orderId}&action=transition`);
      expect(transition).toMatchObject({ actor: { type: 'operator' }, actor_name: 'Operator token' });
    });

    it('when the command line moves an order with --operator, then the history and the trail name that operator', async () => {
      const setup = await createOrderSetup(t);
      const orderId = await createOrder(t, setup);
      await executeCommand(
        t.ctx,
        parseCommand(['move-order', '--order', orderId, '--status', 'processing', '--operator', 'Sam Night-Shift']),
      );
      const detail = ok(await t.operator.get(`/api/admin/medication-requests/${orderId}`), 'detail');
      expect(detail.status_history.at(-1)).toMatchObject({ actor: 'operator', actor_id: null, actor_name: 'Sam Night-Shift' });
      const [transition] = await trail(`resource_id=${orderId}&action=transition`);
      expect(transition).toMatchObject({
        actor: { type: 'command_line', name: 'Sam Night-Shift' },
        actor_name: 'Sam Night-Shift',
      });
    });

    it('when the command line moves an order without --operator, then the OS user running it is named', async () => {
      const setup = await createOrderSetup(t);
      const orderId = await createOrder(t, setup);
      await executeCommand(t.ctx, parseCommand(['move-order', '--order', orderId, '--status', 'processing']));
      const detail = ok(await t.operator.get(`/api/admin/medication-requests/${orderId}`), 'detail');
      expect(detail.status_history.at(-1)).toMatchObject({ actor_name: userInfo().username });
      const [transition] = await trail(`resource_id=${orderId}&action=transition`);
      expect(transition.actor).toEqual({ type: 'command_line', name: userInfo().username });
    });

    it('when --operator is blank or holds no letter, then the command is refused as bad usage before anything runs', () => {
      for (const name of ['', '   ', '1234']) {
        expect(() => parseCommand(['list-clinics', '--operator', name]), JSON.stringify(name)).toThrow(/--operator/);
      }
      expect(parseCommand(['list-clinics', '--operator', 'Jane Doe']).flags.operator).toBe('Jane Doe');
    });

    it('when the OS user cannot be read and no --operator is given, then the command is refused and changes nothing', async () => {
      const setup = await createOrderSetup(t);
      const orderId = await createOrder(t, setup);
      await expect(
        executeCommand(t.ctx, parseCommand(['move-order', '--order', orderId, '--status', 'processing']), { osUser: () => '' }),
      ).rejects.toThrow(/--operator/);
      expect((await getOrder(t, setup.clinic, orderId)).status).toBe('pending');
    });
  });

  describe('keys, OAuth clients, formulary, carriers and clinics', () => {
    it('when a staff member issues, rolls and revokes keys, then each change is in the trail with their id and name', async () => {
      const clinic = await t.createClinic();
      const issued = ok(await asStaff(staff, 'POST', `/api/admin/clinics/${clinic.clinicId}/api-keys`, {}), 'issue');
      const rolled = ok(
        await asStaff(staff, 'POST', `/api/admin/api-keys/${issued.api_key_id}/roll`, { expires_in_seconds: 60 }),
        'roll',
      );
      ok(await asStaff(staff, 'DELETE', `/api/admin/api-keys/${rolled.api_key_id}`), 'revoke');
      // Revoking again changes nothing and records nothing.
      ok(await asStaff(staff, 'DELETE', `/api/admin/api-keys/${rolled.api_key_id}`), 'revoke again');

      const rows = await trail(`resource_type=api_key&clinic_id=${clinic.clinicId}`);
      expect(rows.map((row) => [row.action, row.resource_id]).sort()).toEqual(
        [
          ['create', issued.api_key_id],
          ['roll', issued.api_key_id],
          ['create', rolled.api_key_id],
          ['revoke', rolled.api_key_id],
        ].sort(),
      );
      for (const row of rows) {
        expect(row.actor).toEqual({ type: 'staff', staff_id: staff.staffId, email: staff.email, name: 'Jane Doe' });
        expect(row.actor_name).toBe('Jane Doe');
      }
    });

    it('when a staff member creates and revokes an OAuth client, then both are in the trail naming them', async () => {
      const clinic = await t.createClinic();
      const client = ok(
        await asStaff(staff, 'POST', `/api/admin/clinics/${clinic.clinicId}/oauth-clients`, { scopes: ['orders:read'] }),
        'create client',
      );
      ok(await asStaff(staff, 'DELETE', `/api/admin/oauth-clients/${client.client_id}`), 'revoke client');
      const rows = await trail(`resource_id=${client.client_id}`);
      expect(rows.map((row) => [row.action, row.resource_type, row.actor.staff_id, row.actor_name])).toEqual([
        ['revoke', 'oauth_client', staff.staffId, 'Jane Doe'],
        ['create', 'oauth_client', staff.staffId, 'Jane Doe'],
      ]);
    });

    it('when a staff member adds and removes a formulary medication, then both are in the trail naming them', async () => {
      const clinic = await t.createClinic();
      const medication = ok(
        await asStaff(staff, 'POST', `/api/admin/clinics/${clinic.clinicId}/medications`, { name: 'Naltrexone' }),
        'add',
      );
      ok(
        await asStaff(staff, 'DELETE', `/api/admin/clinics/${clinic.clinicId}/medications/${medication.medication_id}`),
        'remove',
      );
      const rows = await trail(`resource_id=${medication.medication_id}`);
      expect(rows.map((row) => [row.action, row.resource_type, row.clinic_id, row.actor.staff_id, row.actor_name])).toEqual([
        ['delete', 'medication', clinic.clinicId, staff.staffId, 'Jane Doe'],
        ['create', 'medication', clinic.clinicId, staff.staffId, 'Jane Doe'],
      ]);
    });

    it('when a staff member adds a carrier and a service and changes its price, then each is in the trail naming them', async () => {
      const carrier = ok(await asStaff(staff, 'POST', '/api/admin/carriers', { name: `Named Carrier ${dialect}` }), 'carrier');
      ok(
        await asStaff(staff, 'POST', `/api/admin/carriers/${carrier.id}/services`, { id: 'ground', name: 'Ground', price: 5 }),
        'service',
      );
      ok(await asStaff(staff, 'PUT', `/api/admin/carriers/${carrier.id}/services/ground`, { price: 6.5 }), 'price');
      const carrierRows = await trail(`resource_type=carrier&resource_id=${carrier.id}`);
      expect(carrierRows.map((row) => [row.action, row.actor_name])).toEqual([['create', 'Jane Doe']]);
      const serviceRows = await trail(`resource_type=shipping_service&resource_id=${carrier.id}/ground`);
      expect(serviceRows.map((row) => [row.action, row.actor.staff_id, row.actor_name])).toEqual([
        ['update', staff.staffId, 'Jane Doe'],
        ['create', staff.staffId, 'Jane Doe'],
      ]);
    });

    it('when a staff member turns a clinic\u2019s free shipping on, then the trail names them', async () => {
      const clinic = await t.createClinic();
      ok(await asStaff(staff, 'PUT', `/api/admin/clinics/${clinic.clinicId}/shipping`, { free_shipping: true }), 'shipping');
      const rows = await trail(`resource_type=clinic&resource_id=${clinic.clinicId}`);
      expect(rows.map((row) => [row.action, row.actor_name])).toEqual([['update', 'Jane Doe']]);
    });

    it('when a change is refused, then no audit row is left behind', async () => {
      const clinic = await t.createClinic();
      ok(await asStaff(staff, 'POST', `/api/admin/clinics/${clinic.clinicId}/medications`, { name: 'Naltrexone' }), 'add');
      const again = await asStaff(staff, 'POST', `/api/admin/clinics/${clinic.clinicId}/medications`, { name: 'naltrexone' });
      expect(again.status).toBe(409);
      expect(await trail(`resource_type=medication&clinic_id=${clinic.clinicId}`)).toHaveLength(1);
    });

    it('when the command line issues a key, then the trail names its operator', async () => {
      const clinic = await t.createClinic();
      const issued = (await executeCommand(
        t.ctx,
        parseCommand(['issue-key', '--clinic', clinic.clinicId, '--operator', 'Lee Ops']),
      )) as { api_key_id: string };
      const [row] = await trail(`resource_id=${issued.api_key_id}`);
      expect(row).toMatchObject({ action: 'create', actor: { type: 'command_line', name: 'Lee Ops' }, actor_name: 'Lee Ops' });
    });
  });

  describe('the audit list\u2019s filters', () => {
    it('when filtered by actor type and id, action and resource type, then only matching events are listed', async () => {
      const other = await signedInStaff('Omar Other');
      const clinic = await t.createClinic();
      ok(await asStaff(other, 'POST', `/api/admin/clinics/${clinic.clinicId}/medications`, { name: 'By Omar' }), 'omar');
      ok(await t.operator.put(`/api/admin/clinics/${clinic.clinicId}/shipping`, { free_shipping: true }), 'token');
      const scoped = `clinic_id=${clinic.clinicId}`;
      expect((await trail(`${scoped}&actor_type=staff`)).map((r) => r.actor_name)).toEqual(['Omar Other']);
      expect((await trail(`${scoped}&actor_id=${other.staffId}`)).map((r) => r.resource_type)).toEqual(['medication']);
      expect((await trail(`${scoped}&actor_type=operator`)).map((r) => [r.action, r.resource_type])).toEqual([
        ['update', 'clinic'],
      ]);
      expect((await trail(`${scoped}&action=create&resource_type=medication`)).map((r) => r.actor_name)).toEqual(['Omar Other']);
      expect(await trail(`${scoped}&actor_type=staff&action=update`)).toEqual([]);
    });

    it('when a staff member lists the trail, then their own reads are hidden unless they ask for them, and others\u2019 stay', async () => {
      const viewer = await signedInStaff('Vera Viewer', 'pharmacist');
      const setup = await createOrderSetup(t);
      const orderId = await createOrder(t, setup);
      // The viewer opens the order (their reads); Jane opens it too (hers).
      ok(await asStaff(viewer, 'GET', `/api/admin/medication-requests/${orderId}`), 'viewer reads');
      ok(await asStaff(staff, 'GET', `/api/admin/medication-requests/${orderId}`), 'jane reads');
      await t.ctx.audit.flush();
      const list = async (query: string) =>
        ok(await asStaff(viewer, 'GET', `/api/admin/audit-events?resource_id=${orderId}&action=read${query}`), 'list')
          .items as any[];

      expect((await list('')).map((r) => r.actor_name)).toEqual(['Jane Doe']);
      expect((await list('&include_own_reads=true')).map((r) => r.actor_name).sort()).toEqual(['Jane Doe', 'Vera Viewer']);
      expect((await list('&include_own_reads=false')).map((r) => r.actor_name)).toEqual(['Jane Doe']);
    });

    it('when the operator token lists the trail, then the token\u2019s own reads are hidden unless asked for', async () => {
      const setup = await createOrderSetup(t);
      const orderId = await createOrder(t, setup);
      ok(await t.operator.get(`/api/admin/medication-requests/${orderId}`), 'token reads');
      await t.ctx.audit.flush();
      const hidden = ok(await t.operator.get(`/api/admin/audit-events?resource_id=${orderId}&action=read`), 'hidden').items;
      expect(hidden).toEqual([]);
      const shown = ok(
        await t.operator.get(`/api/admin/audit-events?resource_id=${orderId}&action=read&include_own_reads=true`),
        'shown',
      ).items;
      expect(shown.map((r: any) => r.actor_name)).toEqual(['Operator token']);
    });

    it('when a filter is not valid, then 400 names the parameter', async () => {
      const cases: [string, string][] = [
        ['from=yesterday', 'from'],
        ['to=2031-13-01T00:00:00Z', 'to'],
        ['from=2031-01-01T00:00:00.000000000000000000000000000000000Z', 'from'],
        ['from=2031-01-02T00:00:00Z&to=2031-01-01T00:00:00Z', 'to'],
        ['actor_type=robot', 'actor_type'],
        ['resource_type=spaceship', 'resource_type'],
        ['include_own_reads=perhaps', 'include_own_reads'],
        [`resource_id=${'x'.repeat(201)}`, 'resource_id'],
        [`actor_id=${'x'.repeat(101)}`, 'actor_id'],
        ['limit=1000', 'limit'],
      ];
      for (const [query, field] of cases) {
        const res = await t.operator.get(`/api/admin/audit-events?${query}`);
        expect(res.status, query).toBe(400);
        expect(Object.keys(res.body.error.details ?? {}), query).toEqual([field]);
      }
    });

    // Last: it moves the clock a day at a time, past every session signed in before.
    it('when filtered by a date range, then only events at or after `from` and before `to` are listed', async () => {
      const clinic = await t.createClinic();
      time.set(Date.parse('2031-01-01T10:00:00.000Z'));
      const first = ok(await t.operator.post(`/api/admin/clinics/${clinic.clinicId}/medications`, { name: 'First' }), 'first');
      time.set(Date.parse('2031-01-02T10:00:00.000Z'));
      const second = ok(await t.operator.post(`/api/admin/clinics/${clinic.clinicId}/medications`, { name: 'Second' }), 'second');
      time.set(Date.parse('2031-01-03T10:00:00.000Z'));
      const third = ok(await t.operator.post(`/api/admin/clinics/${clinic.clinicId}/medications`, { name: 'Third' }), 'third');
      const ids = async (query: string) =>
        (await trail(`clinic_id=${clinic.clinicId}&resource_type=medication&${query}`)).map((r) => r.resource_id);

      expect(await ids('from=2031-01-02T10:00:00.000Z&to=2031-01-03T10:00:00.000Z')).toEqual([second.medication_id]);
      expect(await ids('from=2031-01-02T00:00:00Z')).toEqual([third.medication_id, second.medication_id]);
      expect(await ids('to=2031-01-02T00:00:00Z')).toEqual([first.medication_id]);
      // An offset is an instant like any other: 12:00+02:00 is 10:00Z.
      expect(await ids(`from=${encodeURIComponent('2031-01-03T12:00:00+02:00')}`)).toEqual([third.medication_id]);
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '../../src/staff/operator-roles.js';
import { SESSION_MAX_AGE_MS, SIGN_IN_LOCK_MS } from '../../src/staff/staff.service.js';
import { createOrder, createOrderSetup } from '../helpers/factories.js';
import { OPERATOR_TOKEN, TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

/**
 * Staff accounts, console sessions and roles (issue 10, items 1-3), through the operator API as the
 * console and an admin's scripts call it. The console's host is `console.example`: a browser there
 * sends `Origin: http://console.example` with every state-changing request.
 */
const HOST = 'console.example';
const OWN_ORIGIN = `http://${HOST}`;
const IDLE_MINUTES = 15;
const PASSWORD = 'correct horse battery staple';

describe.each(DIALECTS)('staff accounts and console sessions on %s', (dialect) => {
  let t: TestApp;
  const clock = fakeClock();
  let emails = 0;

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock, env: { CONSOLE_IDLE_TIMEOUT_MINUTES: String(IDLE_MINUTES) } });
  });
  afterAll(async () => t.close());

  const newEmail = () => `staff${++emails}@pharmacy.example`;

  async function createStaff(role: 'admin' | 'pharmacist', email = newEmail()): Promise<{ staffId: string; email: string }> {
    const res = await t.operator.post('/api/admin/staff', { email, name: 'Pat Pharmacist', role, password: PASSWORD });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { staffId: res.body.data.staff_id, email };
  }

  function signIn(email: string, password = PASSWORD, headers: Record<string, string> = { origin: OWN_ORIGIN }): Promise<Reply> {
    return t.request('POST', '/api/admin/session', {
      headers: { host: HOST, 'content-type': 'application/json', ...headers },
      body: { email, password },
    });
  }

  /** Signs in and answers the cookie to send back (`fulfillment_session=…`). */
  async function session(email: string): Promise<string> {
    const res = await signIn(email);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const cookie = String(res.headers['set-cookie']);
    return cookie.split(';')[0] ?? '';
  }

  /** A console request: the cookie, the host, and (unless told otherwise) the console's own Origin. */
  function asStaff(cookie: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
    return t.request(method, url, {
      headers: {
        host: HOST,
        cookie,
        accept: 'application/json',
        ...(method === 'GET' ? {} : { origin: OWN_ORIGIN }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body,
    });
  }

  describe('accounts', () => {
    it('when an admin creates a staff member, then it is listed without its password, which is stored as a scrypt hash', async () => {
      const email = newEmail();
      const res = await t.operator.post('/api/admin/staff', {
        email: email.toUpperCase(),
        name: ' Ada ',
        role: 'pharmacist',
        password: PASSWORD,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.staff).toEqual({
        staff_id: res.body.data.staff_id,
        email,
        name: 'Ada',
        role: 'pharmacist',
        created_at: clock.clock().toISOString(),
        disabled_at: null,
      });
      const list = await t.operator.get('/api/admin/staff');
      expect(list.body.data.staff).toContainEqual(res.body.data.staff);
      expect(JSON.stringify(list.body)).not.toContain('scrypt');
      const row = await t.ctx.db
        .selectFrom('staff_members')
        .select('password_hash')
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      // The config's cost (lowered in the tests; the production one: test/staff/password.test.ts).
      const { N, r, p } = t.ctx.config.passwordHashing;
      expect(row.password_hash).toMatch(new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$[\\w-]{22}\\$[\\w-]{43}$`));
      expect(row.password_hash).not.toContain(PASSWORD);
    });

    it('when the email is taken, whatever its case, then 409 names it', async () => {
      const { email } = await createStaff('pharmacist');
      const res = await t.operator.post('/api/admin/staff', {
        email: email.toUpperCase(),
        name: 'Twin',
        role: 'admin',
        password: PASSWORD,
      });
      expect(res.status).toBe(409);
      expect(res.body.error.details).toEqual({ email: 'is already the email of a staff member' });
    });

    it.each([
      ['a password under 12 characters', { password: 'short-pass1' }, 'password'],
      ['an unknown role', { role: 'owner' }, 'role'],
      ['no email address', { email: 'not-an-email' }, 'email'],
      ['a blank name', { name: '   ' }, 'name'],
    ])('when the body has %s, then 400 names the field', async (_what, override, field) => {
      const res = await t.operator.post('/api/admin/staff', {
        email: newEmail(),
        name: 'Ok',
        role: 'admin',
        password: PASSWORD,
        ...override,
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual([field]);
    });
  });

  describe('signing in', () => {
    it('when the password is right, then the session cookie is HttpOnly, SameSite=Strict, Path=/, not Secure in development, and the session says who', async () => {
      const { email, staffId } = await createStaff('admin');
      const res = await signIn(email.toUpperCase());
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        staff_id: staffId,
        email,
        name: 'Pat Pharmacist',
        role: 'admin',
        idle_timeout_minutes: IDLE_MINUTES,
        totp_enabled: false,
        totp_required: false,
      });
      const cookie = String(res.headers['set-cookie']);
      expect(cookie).toMatch(/^fulfillment_session=[\w-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
      const me = await asStaff(cookie.split(';')[0] ?? '', 'GET', '/api/admin/session');
      expect(me.body.data.staff_id).toBe(staffId);
    });

    it('when the email is unknown or the password wrong, then the same 401, without saying which', async () => {
      const { email } = await createStaff('pharmacist');
      const wrong = await signIn(email, 'not the password at all');
      const unknown = await signIn(newEmail());
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body.error.message).toBe(unknown.body.error.message);
      expect(wrong.headers['set-cookie']).toBeUndefined();
    });

    it('when five sign-ins fail for one email within 15 minutes, then it is locked for 15 minutes, the right password included, and so is an unknown email', async () => {
      const { email } = await createStaff('pharmacist');
      const unknown = newEmail();
      for (let i = 0; i < 5; i++) {
        if (i > 0) clock.advance(60_000);
        expect((await signIn(email, `wrong password ${i}`)).status).toBe(401);
        expect((await signIn(unknown, `wrong password ${i}`)).status).toBe(401);
      }
      const locked = await signIn(email);
      const lockedUnknown = await signIn(unknown);
      for (const res of [locked, lockedUnknown]) {
        expect(res.status).toBe(429);
        expect(res.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
        expect(res.headers['retry-after']).toBe(String(SIGN_IN_LOCK_MS / 1000));
      }
      expect(locked.body.error.message).toBe(lockedUnknown.body.error.message);

      clock.advance(SIGN_IN_LOCK_MS - 1000);
      expect((await signIn(email)).status).toBe(429);
      clock.advance(1000);
      expect((await signIn(email)).status).toBe(200);
    });

    it('when failures are spread over more than 15 minutes, then they never lock the email', async () => {
      const { email } = await createStaff('pharmacist');
      for (let i = 0; i < 8; i++) {
        expect((await signIn(email, 'wrong password here')).status).toBe(401);
        clock.advance(4 * 60_000);
      }
      expect((await signIn(email)).status).toBe(200);
    });

    it('when one address fails more than 20 sign-ins in a minute, whatever the emails, then 429 before any password is checked', async () => {
      const { email } = await createStaff('pharmacist');
      const from = (address: string, to: string, password: string) =>
        t.request('POST', '/api/admin/session', {
          headers: { host: HOST, 'content-type': 'application/json' },
          body: { email: to, password },
          remoteAddress: address,
        });
      for (let i = 0; i < 20; i++) expect((await from('203.0.113.9', newEmail(), 'guessing passwords')).status).toBe(401);
      const refused = await from('203.0.113.9', email, PASSWORD);
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toMatch(/failed operator authentications from this address/);
      expect((await from('203.0.113.10', email, PASSWORD)).status).toBe(200);
    });

    it('when a sign-in comes from another origin, then 403 and no session; without an Origin (a script), it is accepted', async () => {
      const { email } = await createStaff('pharmacist');
      const res = await signIn(email, PASSWORD, { origin: 'https://evil.example' });
      expect(res.status).toBe(403);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect((await signIn(email, PASSWORD, {})).status).toBe(200);
    });
  });

  describe('sessions', () => {
    it('when the session is idle for the timeout, then it has ended; activity before that keeps it alive', async () => {
      const { email } = await createStaff('pharmacist');
      const cookie = await session(email);
      for (let i = 0; i < 3; i++) {
        clock.advance(IDLE_MINUTES * 60_000 - 1000);
        expect((await asStaff(cookie, 'GET', '/api/admin/medication-requests')).status).toBe(200);
      }
      clock.advance(IDLE_MINUTES * 60_000);
      const ended = await asStaff(cookie, 'GET', '/api/admin/medication-requests');
      expect(ended.status).toBe(401);
      expect(ended.body.error.message).toMatch(/session has ended/);
    });

    it('when a session is 12 hours old, then it has ended however active it was', async () => {
      const { email } = await createStaff('pharmacist');
      const cookie = await session(email);
      for (let elapsed = 0; elapsed < SESSION_MAX_AGE_MS - 10 * 60_000; elapsed += 10 * 60_000) {
        clock.advance(10 * 60_000);
        expect((await asStaff(cookie, 'GET', '/api/admin/session')).status).toBe(200);
      }
      clock.advance(10 * 60_000);
      expect((await asStaff(cookie, 'GET', '/api/admin/session')).status).toBe(401);
    });

    it('when a staff member signs out, then the cookie is cleared and the session no longer works', async () => {
      const { email } = await createStaff('pharmacist');
      const cookie = await session(email);
      const out = await asStaff(cookie, 'DELETE', '/api/admin/session');
      expect(out.status).toBe(200);
      expect(String(out.headers['set-cookie'])).toMatch(/^fulfillment_session=; Max-Age=0; Path=\/; .*HttpOnly; SameSite=Strict/);
      expect((await asStaff(cookie, 'GET', '/api/admin/session')).status).toBe(401);
    });

    it('when an admin disables an account, then its session ends at once and it cannot sign in again', async () => {
      const { email, staffId } = await createStaff('pharmacist');
      const cookie = await session(email);
      const admin = await session((await createStaff('admin')).email);
      const res = await asStaff(admin, 'POST', `/api/admin/staff/${staffId}/disable`);
      expect(res.status).toBe(200);
      expect(res.body.data.disabled_at).toBe(clock.clock().toISOString());
      expect((await asStaff(cookie, 'GET', '/api/admin/session')).status).toBe(401);
      expect((await signIn(email)).status).toBe(401);
      expect((await t.operator.post(`/api/admin/staff/00000000-0000-4000-8000-000000000000/disable`)).status).toBe(404);
    });

    it('when a state-changing request with the cookie has no Origin or another one, then 403 and nothing changes', async () => {
      const cookie = await session((await createStaff('admin')).email);
      const before = (await t.operator.get('/api/admin/clinics')).body.data.clinics.length;
      for (const headers of [{ origin: 'https://evil.example' }, { origin: 'null' }]) {
        const res = await asStaff(cookie, 'POST', '/api/admin/clinics', { name: 'Forged' }, headers);
        expect(res.status).toBe(403);
        expect(res.body.error.message).toMatch(/Cross-origin request refused/);
      }
      const noOrigin = await t.request('POST', '/api/admin/clinics', {
        headers: { host: HOST, cookie, 'content-type': 'application/json' },
        body: { name: 'Forged' },
      });
      expect(noOrigin.status).toBe(403);
      expect((await t.operator.get('/api/admin/clinics')).body.data.clinics).toHaveLength(before);
      expect((await asStaff(cookie, 'POST', '/api/admin/clinics', { name: 'Real' })).status).toBe(200);
    });
  });

  describe('roles', () => {
    it('when a pharmacist calls an admin-only route, then 403 FORBIDDEN; the order queue, formularies and deliveries are theirs', async () => {
      const cookie = await session((await createStaff('pharmacist')).email);
      for (const [method, url, body] of [
        ['GET', '/api/admin/staff', undefined],
        ['POST', '/api/admin/staff', { email: newEmail(), name: 'X', role: 'admin', password: PASSWORD }],
        ['POST', '/api/admin/clinics', { name: 'Nope' }],
        ['POST', '/api/admin/carriers', { name: 'Nope' }],
        ['PUT', '/api/admin/licensed-states', { states: ['CA'] }],
      ] as const) {
        const res = await asStaff(cookie, method, url, body);
        expect(res.status, `${method} ${url}`).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
      }
      for (const url of [
        '/api/admin/medication-requests',
        '/api/admin/webhook-deliveries',
        '/api/admin/clinics',
        '/api/admin/audit-events',
        '/api/admin/dashboard',
        '/api/admin/holds',
        '/api/admin/hold-reasons',
      ]) {
        expect((await asStaff(cookie, 'GET', url)).status, url).toBe(200);
      }
    });

    it('when the operator token is used, then it acts as an admin (automation, emergencies)', async () => {
      expect((await t.operator.get('/api/admin/staff')).status).toBe(200);
      expect((await t.operator.get('/api/admin/session')).status).toBe(404);
    });

    it('when the role table is read, then every route it opens to pharmacists exists', () => {
      const registered = new Set(t.app.registeredRoutes().map((r) => `${r.method} ${r.url}`));
      for (const route of routesOf('pharmacist')) expect(registered.has(route), route).toBe(true);
    });
  });

  describe('the audit trail', () => {
    it('when a staff member acts through the console, then the trail names them (id, email and name) and filters by them', async () => {
      const setup = await createOrderSetup(t);
      const orderId = await createOrder(t, setup);
      const { email, staffId } = await createStaff('pharmacist');
      const cookie = await session(email);
      const moved = await asStaff(cookie, 'POST', `/api/admin/medication-requests/${orderId}/status`, { status: 'processing' });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      await t.ctx.audit.flush();

      const trail = await t.operator.get(`/api/admin/audit-events?actor_id=${staffId}`);
      expect(trail.status).toBe(200);
      expect(trail.body.data.items.length).toBeGreaterThan(0);
      for (const event of trail.body.data.items)
        expect(event.actor).toEqual({ type: 'staff', staff_id: staffId, email, name: 'Pat Pharmacist' });
      expect(trail.body.data.items).toContainEqual(
        expect.objectContaining({ action: 'transition', resource_type: 'medication_request', resource_id: orderId }),
      );
    });
  });
});

describe.each(DIALECTS)('console sessions behind a TLS proxy, in production, on %s', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    // The proxy sets X-Forwarded-Host, and says so (without TRUST_FORWARDED_HOST it is ignored: identity-attacks.test.ts).
    t = await TestApp.start({
      dialect,
      env: { FULFILLMENT_ENV: 'production', TRUST_PROXY: '127.0.0.1', TRUST_FORWARDED_HOST: 'true' },
    });
  });
  afterAll(async () => t.close());

  /** What the proxy forwards of a browser at https://console.example. */
  const proxied = { host: '10.0.0.5:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'console.example' };

  it('when the browser signs in through the proxy, then the cookie is Secure, and the origin the proxy forwarded is the console\u2019s own', async () => {
    const email = 'proxied@pharmacy.example';
    const created = await t.request('POST', '/api/admin/staff', {
      headers: { ...proxied, authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      body: { email, name: 'Proxied', role: 'admin', password: PASSWORD },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);

    const signIn = await t.request('POST', '/api/admin/session', {
      headers: { ...proxied, origin: 'https://console.example', 'content-type': 'application/json' },
      body: { email, password: PASSWORD },
    });
    expect(signIn.status).toBe(200);
    const setCookie = String(signIn.headers['set-cookie']);
    expect(setCookie).toMatch(/; Secure/);
    const cookie = setCookie.split(';')[0] ?? '';

    const change = (origin: string) =>
      t.request('POST', '/api/admin/clinics', {
        headers: { ...proxied, cookie, origin, 'content-type': 'application/json' },
        body: { name: 'Through the proxy' },
      });
    expect((await change('https://console.example')).status).toBe(200);
    expect((await change('http://console.example')).status).toBe(403);
    expect((await change('https://10.0.0.5:3000')).status).toBe(403);
  });
});

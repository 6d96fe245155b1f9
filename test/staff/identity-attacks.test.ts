import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIGN_IN_LOCK_MS } from '../../src/staff/staff.service.js';
import { OPERATOR_TOKEN, TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

/**
 * Identity that holds under attack (issue 21, item 4): concurrent password guesses, weak staff
 * passwords, the last admin, and a forged X-Forwarded-Host. Through the operator API, as the console
 * and an attacker's scripts call it.
 */
const HOST = 'console.example';
const OWN_ORIGIN = `http://${HOST}`;
const PASSWORD = 'correct horse battery staple';

describe.each(DIALECTS)('identity under attack on %s', (dialect) => {
  let t: TestApp;
  const clock = fakeClock();
  let emails = 0;
  const newEmail = () => `guarded${++emails}@pharmacy.example`;

  async function createStaff(app: TestApp, role: 'admin' | 'pharmacist'): Promise<{ staffId: string; email: string }> {
    const email = newEmail();
    const res = await app.operator.post('/api/admin/staff', { email, name: 'Sam Staff', role, password: PASSWORD });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { staffId: res.body.data.staff_id, email };
  }

  const signIn = (app: TestApp, email: string, password: string, remoteAddress = '127.0.0.1'): Promise<Reply> =>
    app.request('POST', '/api/admin/session', {
      headers: { host: HOST, origin: OWN_ORIGIN, 'content-type': 'application/json' },
      body: { email, password },
      remoteAddress,
    });

  /** Signs in and answers the cookie to send back. */
  async function session(app: TestApp, email: string): Promise<string> {
    const res = await signIn(app, email, PASSWORD);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return String(res.headers['set-cookie']).split(';')[0] ?? '';
  }

  const asStaff = (app: TestApp, cookie: string, method: string, url: string) =>
    app.request(method, url, { headers: { host: HOST, cookie, origin: OWN_ORIGIN, accept: 'application/json' } });

  describe('sign-ins and passwords', () => {
    beforeAll(async () => {
      t = await TestApp.start({ dialect, clock: clock.clock });
    });
    afterAll(async () => t.close());

    it('when 20 wrong passwords for one email arrive at once, then at most 5 are checked and the rest are refused as locked; the right password stays refused until the lock ends', async () => {
      const { email } = await createStaff(t, 'pharmacist');
      // From 20 addresses, as a distributed guesser would: the per-address limit plays no part.
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => signIn(t, email, `wrong guess number ${i}`, `198.51.100.${i + 1}`)),
      );
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(5);
      expect(statuses.filter((status) => status === 429)).toHaveLength(15);
      for (const refused of answers.filter((res) => res.status === 429)) {
        expect(refused.body.error.message).toMatch(/Too many failed sign-ins for this email/);
      }

      const locked = await signIn(t, email, PASSWORD);
      expect(locked.status).toBe(429);
      expect(locked.headers['retry-after']).toBe(String(SIGN_IN_LOCK_MS / 1000));
      clock.advance(SIGN_IN_LOCK_MS - 1000);
      expect((await signIn(t, email, PASSWORD)).status).toBe(429);
      clock.advance(1000);
      expect((await signIn(t, email, PASSWORD)).status).toBe(200);
    });

    it.each([
      ['twelve a', 'aaaaaaaaaaaa'],
      ['a common password', '123456789012'],
      ['a common word and digits', 'password1234'],
      ['a keyboard walk', 'qwertyuiop123'],
    ])(
      'when a staff account is created with %s as its password, then 400 VALIDATION_ERROR names password, with advice, and no account',
      async (_what, password) => {
        const email = newEmail();
        const res = await t.operator.post('/api/admin/staff', { email, name: 'Weak Password', role: 'admin', password });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        expect(Object.keys(res.body.error.details)).toEqual(['password']);
        expect(res.body.error.details.password).toMatch(/^is (one of the most common passwords|too easy to guess): \S/);
        expect(res.body.error.message).toMatch(/password/);
        expect(JSON.stringify(res.body)).not.toContain(password);
        const list = await t.operator.get('/api/admin/staff');
        expect(JSON.stringify(list.body)).not.toContain(email);
      },
    );

    it('when the password is the account\u2019s own email, then it is refused as too easy to guess', async () => {
      const email = newEmail();
      const res = await t.operator.post('/api/admin/staff', { email, name: 'Self Named', role: 'pharmacist', password: email });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details)).toEqual(['password']);
    });

    it('when the password is a few unrelated words, then the account is created', async () => {
      const res = await t.operator.post('/api/admin/staff', {
        email: newEmail(),
        name: 'Strong Password',
        role: 'pharmacist',
        password: 'lemon otter quartz 47',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    });

    it('when a password holds a right-to-left override or a zero-width space, then it is a password like any other: accepted, and it signs in (the text rules of names are not a password’s)', async () => {
      const typed = 'lemon \u202Eotter\u200B quartz 47';
      const email = newEmail();
      const created = await t.operator.post('/api/admin/staff', {
        email,
        name: 'Typed Password',
        role: 'pharmacist',
        password: typed,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect((await signIn(t, email, typed)).status).toBe(200);
    });
  });

  describe('the last active admin', () => {
    let app: TestApp;
    beforeEach(async () => {
      app = await TestApp.start({ dialect, clock: clock.clock });
    });
    afterEach(async () => app.close());

    it('when the only active admin disables itself, or the operator token disables it, then 409 CONFLICT and it stays active; with a second admin it may', async () => {
      const first = await createStaff(app, 'admin');
      const cookie = await session(app, first.email);
      await createStaff(app, 'pharmacist');

      const itself = await asStaff(app, cookie, 'POST', `/api/admin/staff/${first.staffId}/disable`);
      expect(itself.status).toBe(409);
      expect(itself.body.error.code).toBe('CONFLICT');
      expect(itself.body.error.message).toMatch(/last active admin/);
      const byToken = await app.operator.post(`/api/admin/staff/${first.staffId}/disable`);
      expect(byToken.status).toBe(409);
      const list = await app.operator.get('/api/admin/staff');
      expect(list.body.data.staff.find((s: { staff_id: string }) => s.staff_id === first.staffId).disabled_at).toBeNull();
      expect((await asStaff(app, cookie, 'GET', '/api/admin/session')).status).toBe(200);

      const second = await createStaff(app, 'admin');
      expect((await asStaff(app, cookie, 'POST', `/api/admin/staff/${first.staffId}/disable`)).status).toBe(200);
      expect((await app.operator.post(`/api/admin/staff/${second.staffId}/disable`)).status).toBe(409);
    });

    it('when two admins are disabled at once, then one is and the other gets 409: an active admin is always left', async () => {
      const one = await createStaff(app, 'admin');
      const two = await createStaff(app, 'admin');
      const answers = await Promise.all([
        app.operator.post(`/api/admin/staff/${one.staffId}/disable`),
        app.operator.post(`/api/admin/staff/${two.staffId}/disable`),
      ]);
      expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
      const staff = (await app.operator.get('/api/admin/staff')).body.data.staff as {
        role: string;
        disabled_at: string | null;
      }[];
      expect(staff.filter((s) => s.role === 'admin' && s.disabled_at === null)).toHaveLength(1);
    });
  });

  describe('X-Forwarded-Host behind a trusted proxy', () => {
    /** What a proxy at 127.0.0.1 forwards: HTTPS, and whatever X-Forwarded-Host it was given or set. */
    const viaProxy = (host: string, forwardedHost: string, origin: string) => ({
      host,
      'x-forwarded-proto': 'https',
      'x-forwarded-host': forwardedHost,
      origin,
      'content-type': 'application/json',
    });

    async function signInThrough(app: TestApp, headers: Record<string, string>): Promise<Reply> {
      const email = newEmail();
      const created = await app.request('POST', '/api/admin/staff', {
        headers: {
          host: HOST,
          'x-forwarded-proto': 'https',
          authorization: `Bearer ${OPERATOR_TOKEN}`,
          'content-type': 'application/json',
        },
        body: { email, name: 'Proxied Staff', role: 'pharmacist', password: PASSWORD },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      return app.request('POST', '/api/admin/session', { headers, body: { email, password: PASSWORD } });
    }

    it('when TRUST_FORWARDED_HOST is not set, then a client\u2019s X-Forwarded-Host is ignored: the Host header is the console\u2019s origin', async () => {
      const app = await TestApp.start({ dialect, env: { FULFILLMENT_ENV: 'production', TRUST_PROXY: '127.0.0.1' } });
      try {
        // An attacker's page names its own origin in X-Forwarded-Host: refused.
        const forged = await signInThrough(app, viaProxy(HOST, 'evil.example', 'https://evil.example'));
        expect(forged.status).toBe(403);
        expect(forged.body.error.message).toMatch(/Cross-origin request refused/);
        // The Host header the proxy kept is what counts.
        expect((await signInThrough(app, viaProxy(HOST, 'evil.example', `https://${HOST}`))).status).toBe(200);
      } finally {
        await app.close();
      }
    });

    it('when TRUST_FORWARDED_HOST=true, then the proxy\u2019s X-Forwarded-Host is the console\u2019s origin', async () => {
      const app = await TestApp.start({
        dialect,
        env: { FULFILLMENT_ENV: 'production', TRUST_PROXY: '127.0.0.1', TRUST_FORWARDED_HOST: 'true' },
      });
      try {
        expect((await signInThrough(app, viaProxy('10.0.0.5:3000', HOST, `https://${HOST}`))).status).toBe(200);
        expect((await signInThrough(app, viaProxy('10.0.0.5:3000', HOST, 'https://10.0.0.5:3000'))).status).toBe(403);
      } finally {
        await app.close();
      }
    });
  });
});

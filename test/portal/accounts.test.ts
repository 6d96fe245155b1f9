import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/accounts/totp.js';
import { INVITATION_TTL_MS } from '../../src/portal/partner-user.service.js';
import { SIGN_IN_LOCK_MS } from '../../src/staff/staff.service.js';
import {
  invitePartnerUserForTest,
  PORTAL_HOST,
  PORTAL_ORIGIN,
  PORTAL_PASSWORD,
  portalHeaders,
  portalRequest,
  portalSignIn,
  portalSignInWith,
} from '../helpers/portal.js';
import { OPERATOR_TOKEN, TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

/**
 * The partner portal's accounts (issue 22, item 1): invitations, sign-in, sessions, the second factor,
 * and the operator's routes, over HTTP as the portal page and the console call them.
 */
describe.each(DIALECTS)('partner portal accounts on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;
  const clock = fakeClock();

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock });
    clinic = await t.createClinic({ name: 'Northwind Clinic' });
    other = await t.createClinic({ name: 'Other Clinic' });
  });
  afterAll(async () => t.close());

  const accept = (token: string, password = PORTAL_PASSWORD, name = 'Robin Developer') =>
    t.request('POST', '/api/portal/invitations/accept', { headers: portalHeaders(), body: { token, name, password } });

  describe('invitations', () => {
    it('an invitation names its account and clinic; its password is set once, then the person signs in to their own clinic', async () => {
      const invitation = await invitePartnerUserForTest(t, clinic.clinicId, 'developer');
      const shown = await t.request('GET', `/api/portal/invitations/${invitation.token}`, { headers: portalHeaders() });
      expect(shown.status).toBe(200);
      expect(shown.body.data).toMatchObject({ email: invitation.email, clinic_name: 'Northwind Clinic', role: 'developer' });

      expect((await accept(invitation.token)).status).toBe(200);
      const again = await accept(invitation.token, 'another long passphrase for me');
      expect(again.status).toBe(404);
      expect(again.body.error.message).toMatch(/already used, has expired/);

      const { reply, cookie } = await portalSignInWith(t, invitation.email.toUpperCase(), PORTAL_PASSWORD);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.headers['set-cookie']).toMatch(/portal_session=.+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict/);
      const session = await portalRequest(t, portalHeaders(cookie), 'GET', '/api/portal/session');
      expect(session.body.data).toEqual({
        partner_user_id: invitation.partnerUserId,
        email: invitation.email,
        name: 'Robin Developer',
        role: 'developer',
        clinic_id: clinic.clinicId,
        clinic_name: 'Northwind Clinic',
        environment: 'development',
        totp_enabled: false,
        idle_timeout_minutes: 15,
      });
    });

    it('a link past its 72 hours, or replaced by a newer one, is refused, and nothing is changed', async () => {
      const late = await invitePartnerUserForTest(t, clinic.clinicId, 'viewer');
      clock.advance(INVITATION_TTL_MS);
      expect((await t.request('GET', `/api/portal/invitations/${late.token}`, { headers: portalHeaders() })).status).toBe(404);
      expect((await accept(late.token)).status).toBe(404);
      expect((await portalSignInWith(t, late.email, PORTAL_PASSWORD)).reply.status).toBe(401);

      const replaced = await invitePartnerUserForTest(t, clinic.clinicId, 'viewer');
      const renewed = await t.operator.post(`/api/admin/partner-users/${replaced.partnerUserId}/invitation`, {});
      expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
      expect((await accept(replaced.token)).status).toBe(404);
      const newToken = String(renewed.body.data.invitation_url).split('#')[1] ?? '';
      expect((await accept(newToken)).status).toBe(200);
    });

    it('a weak password is refused naming `password`, and the link stays usable', async () => {
      const invitation = await invitePartnerUserForTest(t, clinic.clinicId, 'viewer');
      const weak = await accept(invitation.token, 'password1234');
      expect(weak.status).toBe(400);
      expect(weak.body.error.details).toHaveProperty('password');
      expect((await accept(invitation.token)).status).toBe(200);
    });

    it('an unknown or malformed token is a 404 or a 400, never a 500', async () => {
      expect((await accept('x'.repeat(43))).status).toBe(404);
      expect((await accept('')).status).toBe(400);
      expect((await t.request('GET', `/api/portal/invitations/${'y'.repeat(101)}`, { headers: portalHeaders() })).status).toBe(
        400,
      );
    });
  });

  describe('sessions', () => {
    it('a wrong password is 401; five failures lock the email (429 with Retry-After), even for the right password', async () => {
      const invitation = await invitePartnerUserForTest(t, clinic.clinicId, 'viewer');
      await accept(invitation.token);
      for (let attempt = 0; attempt < 5; attempt += 1) {
        expect((await portalSignInWith(t, invitation.email, 'not the password at all')).reply.status).toBe(401);
      }
      const locked = await portalSignInWith(t, invitation.email, PORTAL_PASSWORD);
      expect(locked.reply.status).toBe(429);
      expect(Number(locked.reply.headers['retry-after'])).toBeGreaterThan(0);
      clock.advance(SIGN_IN_LOCK_MS);
      expect((await portalSignInWith(t, invitation.email, PORTAL_PASSWORD)).reply.status).toBe(200);
    });

    it('a session ends when idle past the timeout, at sign-out, and when an operator disables the account', async () => {
      const idle = await portalSignIn(t, clinic.clinicId, 'viewer');
      clock.advance(15 * 60_000);
      expect((await portalRequest(t, idle.headers, 'GET', '/api/portal/session')).status).toBe(401);

      const out = await portalSignIn(t, clinic.clinicId, 'viewer');
      expect((await portalRequest(t, out.headers, 'DELETE', '/api/portal/session')).status).toBe(200);
      expect((await portalRequest(t, out.headers, 'GET', '/api/portal/session')).status).toBe(401);

      const disabled = await portalSignIn(t, clinic.clinicId, 'developer');
      expect((await portalRequest(t, disabled.headers, 'GET', '/api/portal/session')).status).toBe(200);
      const res = await t.operator.post(`/api/admin/partner-users/${disabled.user.partnerUserId}/disable`, {});
      expect(res.body.data.status).toBe('disabled');
      expect((await portalRequest(t, disabled.headers, 'GET', '/api/portal/session')).status).toBe(401);
      expect((await portalSignInWith(t, disabled.email, PORTAL_PASSWORD)).reply.status).toBe(401);
    });

    it('a change from another origin, or without Origin, is refused (403) with nothing changed; the open routes check it too', async () => {
      const { headers } = await portalSignIn(t, clinic.clinicId, 'developer');
      const forged = await portalRequest(
        t,
        { ...headers, origin: 'https://evil.example' },
        'POST',
        '/api/portal/account/totp',
        {},
      );
      expect(forged.status).toBe(403);
      const { origin: _origin, ...noOrigin } = headers;
      expect((await portalRequest(t, noOrigin, 'POST', '/api/portal/account/totp', {})).status).toBe(403);
      const session = await portalRequest(t, headers, 'GET', '/api/portal/session');
      expect(session.body.data.totp_enabled).toBe(false);
      const signIn = await t.request('POST', '/api/portal/session', {
        headers: { ...portalHeaders(), origin: 'https://evil.example' },
        body: { email: 'a@b.example', password: 'whatever it is' },
      });
      expect(signIn.status).toBe(403);
    });

    it('without a session every portal route is 401, and the console\u2019s cookie is not a portal session', async () => {
      expect((await t.request('GET', '/api/portal/session', { headers: { host: PORTAL_HOST } })).status).toBe(401);
      const staff = await t.request('GET', '/api/portal/session', {
        headers: { host: PORTAL_HOST, cookie: 'fulfillment_session=abc', origin: PORTAL_ORIGIN },
      });
      expect(staff.status).toBe(401);
    });
  });

  describe('two-step sign-in (TOTP)', () => {
    it('once confirmed, sign-in needs a current code; a wrong or reused code is refused and counted', async () => {
      const { headers, email } = await portalSignIn(t, clinic.clinicId, 'viewer');
      const started = await portalRequest(t, headers, 'POST', '/api/portal/account/totp', {});
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      const secret: string = started.body.data.secret;
      expect(started.body.data.otpauth_uri).toMatch(/^otpauth:\/\/totp\/.+secret=/);

      // Until confirmed, sign-in asks for no code.
      expect((await portalSignInWith(t, email, PORTAL_PASSWORD)).reply.status).toBe(200);
      const wrong = await portalRequest(t, headers, 'POST', '/api/portal/account/totp/confirm', { code: '000000' });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.details).toHaveProperty('code');
      const confirmed = await portalRequest(t, headers, 'POST', '/api/portal/account/totp/confirm', {
        code: totpCode(secret, clock.clock()),
      });
      expect(confirmed.body.data.totp_enabled).toBe(true);

      const missing = await portalSignInWith(t, email, PORTAL_PASSWORD);
      expect(missing.reply.status).toBe(401);
      expect(missing.reply.body.error.details).toHaveProperty('totp_code');
      expect(missing.cookie).toBe('');
      const bad = await portalSignInWith(t, email, PORTAL_PASSWORD, '123456');
      expect(bad.reply.status).toBe(401);
      expect(bad.reply.body.error.details.totp_code).toMatch(/not the current code/);

      // The code that confirmed the enrollment is used up: the next step's code signs in, once.
      clock.advance(30_000);
      const code = totpCode(secret, clock.clock());
      expect((await portalSignInWith(t, email, PORTAL_PASSWORD, code)).reply.status).toBe(200);
      expect((await portalSignInWith(t, email, PORTAL_PASSWORD, code)).reply.status).toBe(401);

      clock.advance(30_000);
      const off = await portalRequest(t, headers, 'DELETE', '/api/portal/account/totp', {
        code: totpCode(secret, clock.clock()),
      });
      expect(off.body.data.totp_enabled).toBe(false);
      expect((await portalSignInWith(t, email, PORTAL_PASSWORD)).reply.status).toBe(200);
    });

    it('console accounts: sign-in takes the code, and REQUIRE_ADMIN_TOTP keeps an admin to setting it up', async () => {
      const strict = await TestApp.start({ dialect, clock: clock.clock, env: { REQUIRE_ADMIN_TOTP: 'true' } });
      try {
        const email = 'strict.admin@pharmacy.example';
        const password = 'a long admin passphrase here';
        expect(
          (await strict.operator.post('/api/admin/staff', { email, name: 'Strict Admin', role: 'admin', password })).status,
        ).toBe(200);
        const consoleHeaders = { host: PORTAL_HOST, origin: PORTAL_ORIGIN, 'content-type': 'application/json' };
        const signIn = (code?: string) =>
          strict.request('POST', '/api/admin/session', {
            headers: consoleHeaders,
            body: { email, password, ...(code === undefined ? {} : { totp_code: code }) },
          });
        const first = await signIn();
        expect(first.body.data).toMatchObject({ totp_enabled: false, totp_required: true });
        const cookie = String(first.headers['set-cookie']).split(';')[0] ?? '';
        const asAdmin = (method: string, url: string, body?: unknown) =>
          strict.request(
            method,
            url,
            body === undefined ? { headers: { host: PORTAL_HOST, cookie } } : { headers: { ...consoleHeaders, cookie }, body },
          );

        const blocked = await asAdmin('GET', '/api/admin/clinics');
        expect(blocked.status).toBe(403);
        expect(blocked.body.error.message).toMatch(/Two-step sign-in is required/);
        const started = await asAdmin('POST', '/api/admin/account/totp', {});
        const secret: string = started.body.data.secret;
        const confirmed = await asAdmin('POST', '/api/admin/account/totp/confirm', { code: totpCode(secret, clock.clock()) });
        expect(confirmed.body.data).toMatchObject({ totp_enabled: true, totp_required: false });
        expect((await asAdmin('GET', '/api/admin/clinics')).status).toBe(200);

        expect((await signIn()).status).toBe(401);
        clock.advance(30_000);
        const withCode = await signIn(totpCode(secret, clock.clock()));
        expect(withCode.status, JSON.stringify(withCode.body)).toBe(200);
        expect(withCode.body.data.totp_enabled).toBe(true);
        // The operator token is an admin without an account: it is not held back, and has nothing to set up.
        expect((await strict.operator.get('/api/admin/clinics')).status).toBe(200);
        expect((await strict.operator.post('/api/admin/account/totp', {})).status).toBe(404);
      } finally {
        await strict.close();
      }
    });
  });

  describe('the operator\u2019s routes', () => {
    it('invites with a link on the console\u2019s address (or PUBLIC_BASE_URL), lists, and refuses a taken email or an unknown clinic', async () => {
      const res = await t.request('POST', `/api/admin/clinics/${other.clinicId}/partner-users`, {
        headers: {
          authorization: `Bearer ${OPERATOR_TOKEN}`,
          'content-type': 'application/json',
          host: 'console.pharmacy.example',
        },
        body: { email: 'Dev@Other.example', role: 'developer' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.partner_user).toMatchObject({
        email: 'dev@other.example',
        status: 'invited',
        clinic_id: other.clinicId,
      });
      expect(res.body.data.invitation_url).toMatch(/^http:\/\/console\.pharmacy\.example\/portal\/invitation#[\w-]{43}$/);

      const taken = await t.operator.post(`/api/admin/clinics/${clinic.clinicId}/partner-users`, {
        email: 'dev@other.example',
        role: 'viewer',
      });
      expect(taken.status).toBe(409);
      expect(taken.body.error.details).toHaveProperty('email');
      const unknown = await t.operator.post('/api/admin/clinics/0190a000-0000-7000-8000-000000000000/partner-users', {
        email: 'x@y.example',
        role: 'viewer',
      });
      expect(unknown.status).toBe(404);
      const badRole = await t.operator.post(`/api/admin/clinics/${clinic.clinicId}/partner-users`, {
        email: 'z@y.example',
        role: 'admin',
      });
      expect(badRole.status).toBe(400);

      const listed = await t.operator.get(`/api/admin/clinics/${other.clinicId}/partner-users`);
      expect(listed.body.data.partner_users.map((u: { email: string }) => u.email)).toEqual(['dev@other.example']);

      const based = await TestApp.start({ dialect, env: { PUBLIC_BASE_URL: 'https://fulfillment.example.com/' } });
      try {
        const c = await based.createClinic();
        const invited = await based.operator.post(`/api/admin/clinics/${c.clinicId}/partner-users`, {
          email: 'a@b.example',
          role: 'viewer',
        });
        expect(invited.body.data.invitation_url).toMatch(/^https:\/\/fulfillment\.example\.com\/portal\/invitation#/);
      } finally {
        await based.close();
      }
    });

    it('every portal account change is in the audit trail with the person\u2019s identity', async () => {
      const { headers, user } = await portalSignIn(t, clinic.clinicId, 'developer');
      const started = await portalRequest(t, headers, 'POST', '/api/portal/account/totp', {});
      await portalRequest(t, headers, 'POST', '/api/portal/account/totp/confirm', {
        code: totpCode(started.body.data.secret, clock.clock()),
      });
      const trail = await t.operator.get(`/api/admin/audit-events?resource_type=partner_user&clinic_id=${clinic.clinicId}`);
      expect(trail.status, JSON.stringify(trail.body)).toBe(200);
      const mine = trail.body.data.items.filter((e: { resource_id: string }) => e.resource_id === user.partnerUserId);
      expect(mine.map((e: { action: string }) => e.action).sort()).toEqual(['create', 'update', 'update']);
      const own = mine.filter((e: { actor: { type: string } }) => e.actor.type === 'partner_user');
      expect(own[0].actor).toEqual({
        type: 'partner_user',
        partner_user_id: user.partnerUserId,
        email: user.email,
        name: 'Pat developer',
        clinic_id: clinic.clinicId,
      });
    });
  });
});

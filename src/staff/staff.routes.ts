// Over 250 lines: the staff's nine routes (sign-in, session, accounts) with their schemas, each a thin call to staff.service.ts.
import { Type } from '@sinclair/typebox';
import cookie from '@fastify/cookie';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { operatorErrors, createErrors, operatorSecurity } from '../contracts/schemas.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { admitOperatorAttempt, SESSION_COOKIE, totpRequired } from '../http/operator-guard.js';
import { confirmTotpEnrollment, disableTotp, startTotpEnrollment } from '../accounts/second-factor.service.js';
import { signInRefusal } from '../accounts/sign-in-refusal.js';
import { TotpCodeBody, TotpEnrollment } from '../accounts/account.schemas.js';
import { operatorAudit } from '../http/audit-context.js';
import { requestCookie } from '../http/cookies.js';
import { Envelope, errorRef } from '../contracts/schemas.js';
import { CreateStaffBody, Session, SignInBody, StaffMember, StaffParams } from './staff.schemas.js';
import {
  createStaffMember,
  disableStaffMember,
  listStaffMembers,
  SESSION_MAX_AGE_MS,
  signIn,
  signOut,
  type StaffIdentity,
} from './staff.service.js';

const tags = ['Operator'];
const security = operatorSecurity;

/**
 * Staff accounts (admins only) and console sessions (issue 10; docs/console.md). The session is a
 * cookie: HttpOnly, SameSite=Strict, Path=/, and Secure in production.
 */
export function staffRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const sessionView = (staff: StaffIdentity) => ({
    staff_id: staff.staffId,
    email: staff.email,
    name: staff.name,
    role: staff.role,
    idle_timeout_minutes: ctx.config.consoleIdleTimeoutMs / 60_000,
    totp_enabled: staff.totpEnabled,
    totp_required: totpRequired(ctx, staff),
  });
  const cookieOptions = {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.config.env === 'production',
    path: '/',
  } as const;
  const clearCookie = (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, cookieOptions);

  return async (app) => {
    // Sign-in sets the session cookie and sign-out clears it: the cookie writer (an onSend hook) runs
    // on these routes only; reading a cookie needs no hook (http/cookies.ts).
    await app.register(cookie, { hook: false });
    app.post(
      '/api/admin/staff',
      {
        schema: {
          tags,
          security,
          operationId: 'createOperatorStaffMember',
          summary: 'Create a staff account',
          description:
            'Admins only. The password (at least 12 characters, and hard to guess: zxcvbn score 3 or more, not a common password) is stored as a scrypt hash.',
          body: CreateStaffBody,
          response: {
            200: Envelope(Type.Object({ staff_id: Type.String(), staff: StaffMember })),
            ...createErrors('A staff member with this email'),
          },
        },
      },
      async (request) => {
        const staff = await createStaffMember(ctx, request.body, operatorAudit(request));
        return { success: true as const, data: { staff_id: staff.staff_id, staff }, message: 'Staff member created' };
      },
    );

    app.get(
      '/api/admin/staff',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorStaffMembers',
          summary: 'List staff accounts',
          response: { 200: Envelope(Type.Object({ staff: Type.Array(StaffMember) })), ...operatorErrors },
        },
      },
      async () => ({ success: true as const, data: { staff: await listStaffMembers(ctx) }, message: 'Staff' }),
    );

    app.post(
      '/api/admin/staff/:staffId/disable',
      {
        schema: {
          tags,
          security,
          operationId: 'disableOperatorStaffMember',
          summary: 'Disable a staff account',
          description:
            'Admins only. The account can no longer sign in, and its sessions end at once. The last active admin cannot be disabled (409), not even by itself.',
          params: StaffParams,
          response: { 200: Envelope(StaffMember), ...operatorErrors, 409: errorRef('The last active admin cannot be disabled.') },
        },
      },
      async (request) => ({
        success: true as const,
        data: await disableStaffMember(ctx, request.params.staffId, operatorAudit(request)),
        message: 'Staff member disabled',
      }),
    );

    app.post(
      '/api/admin/session',
      {
        schema: {
          tags,
          operationId: 'createOperatorSession',
          summary: 'Sign in to the console',
          description:
            'Sets the session cookie. Five failed sign-ins for one email within 15 minutes lock it for 15 minutes (429); the answer never says whether the email has an account.',
          body: SignInBody,
          response: {
            200: Envelope(Session),
            400: errorRef('Validation error.'),
            401: errorRef('Email or password is incorrect, or the authenticator code is missing or wrong (`details.totp_code`).'),
            429: errorRef(
              'Too many failed sign-ins for this email (5 in 15 minutes), or failed operator authentications from this address (20 a minute): `retry_after` and Retry-After say when to retry.',
            ),
          },
        },
      },
      async (request, reply) => {
        // Wrong passwords count against the address like wrong operator tokens (and cost a password hash each).
        const succeeded = await admitOperatorAttempt(ctx, request, reply);
        const outcome = await signIn(ctx, request.body.email, request.body.password, request.body.totp_code);
        if (outcome.kind !== 'signed_in') throw signInRefusal(outcome, reply);
        await succeeded();
        request.log.info({ staffId: outcome.staff.staffId }, 'staff signed in');
        reply.setCookie(SESSION_COOKIE, outcome.token, { ...cookieOptions, maxAge: SESSION_MAX_AGE_MS / 1000 });
        return { success: true as const, data: sessionView(outcome.staff), message: 'Signed in' };
      },
    );

    app.get(
      '/api/admin/session',
      {
        schema: {
          tags,
          security,
          operationId: 'getOperatorSession',
          summary: 'Who is signed in',
          description: 'The console\u2019s staff member; with the operator token, 404 (no session).',
          response: { 200: Envelope(Session), ...operatorErrors },
        },
      },
      async (request) => {
        const operator = request.operator;
        if (operator?.kind !== 'staff')
          throw new AppError('NOT_FOUND', 404, 'No console session: this request used the operator token');
        return { success: true as const, data: sessionView(operator.staff), message: 'Session' };
      },
    );

    app.delete(
      '/api/admin/session',
      {
        schema: {
          tags,
          security,
          operationId: 'deleteOperatorSession',
          summary: 'Sign out of the console',
          response: { 200: Envelope(Type.Object({ signed_out: Type.Boolean() })), ...operatorErrors },
        },
      },
      async (request, reply) => {
        const token = requestCookie(request, SESSION_COOKIE);
        if (token) await signOut(ctx, token);
        clearCookie(reply);
        return { success: true as const, data: { signed_out: true }, message: 'Signed out' };
      },
    );

    /** The signed-in staff member (the operator token has no account: 404). */
    const staffOf = (request: FastifyRequest): StaffIdentity => {
      const operator = request.operator;
      if (operator?.kind !== 'staff')
        throw new AppError('NOT_FOUND', 404, 'No console session: the operator token has no account to set up');
      return operator.staff;
    };

    app.post(
      '/api/admin/account/totp',
      {
        schema: {
          tags,
          security,
          operationId: 'startOperatorTotp',
          summary: 'Start setting up two-step sign-in',
          description:
            'A new secret for an authenticator app (shown once); sign-in asks for no code until a code confirms it. 409 when it is already on.',
          response: { 200: Envelope(TotpEnrollment), ...operatorErrors, 409: errorRef('Two-step sign-in is already on.') },
        },
      },
      async (request) => ({
        success: true as const,
        data: await startTotpEnrollment(ctx, 'staff_members', staffOf(request).staffId),
        message: 'Scan the secret with your authenticator app, then confirm with a code',
      }),
    );

    app.post(
      '/api/admin/account/totp/confirm',
      {
        schema: {
          tags,
          security,
          operationId: 'confirmOperatorTotp',
          summary: 'Turn two-step sign-in on with a code',
          body: TotpCodeBody,
          response: { 200: Envelope(Session), ...operatorErrors, 409: errorRef('Nothing is being set up, or it is already on.') },
        },
      },
      async (request) => {
        const staff = staffOf(request);
        await confirmTotpEnrollment(ctx, 'staff_members', staff.staffId, request.body.code, operatorAudit(request), null);
        return { success: true as const, data: sessionView({ ...staff, totpEnabled: true }), message: 'Two-step sign-in is on' };
      },
    );

    app.delete(
      '/api/admin/account/totp',
      {
        schema: {
          tags,
          security,
          operationId: 'disableOperatorTotp',
          summary: 'Turn two-step sign-in off with a code',
          body: TotpCodeBody,
          response: { 200: Envelope(Session), ...operatorErrors, 409: errorRef('Two-step sign-in is not on.') },
        },
      },
      async (request) => {
        const staff = staffOf(request);
        await disableTotp(ctx, 'staff_members', staff.staffId, request.body.code, operatorAudit(request), null);
        return {
          success: true as const,
          data: sessionView({ ...staff, totpEnabled: false }),
          message: 'Two-step sign-in is off',
        };
      },
    );
  };
}

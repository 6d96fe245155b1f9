// Over 250 lines: the portal's eight sign-in and session routes with their cookie and origin rules, which are read together.
import { Type, type Static } from '@sinclair/typebox';
import cookie from '@fastify/cookie';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { confirmTotpEnrollment, disableTotp, startTotpEnrollment } from '../accounts/second-factor.service.js';
import { signInRefusal } from '../accounts/sign-in-refusal.js';
import { TotpCodeBody, TotpEnrollment } from '../accounts/account.schemas.js';
import type { AppContext } from '../context.js';
import { clientAddress } from '../http/client-address.js';
import { requestCookie } from '../http/cookies.js';
import { admitPortalAttempt, PORTAL_SESSION_COOKIE } from '../http/portal-guard.js';
import { Envelope, errorRef, portalErrors, portalSecurity } from '../contracts/schemas.js';
import { SESSION_MAX_AGE_MS } from '../staff/staff.service.js';
import {
  acceptInvitation,
  describeInvitation,
  portalAccountOf,
  signInPartnerUser,
  signOutPartnerUser,
} from './partner-user.service.js';
import {
  AcceptInvitationBody,
  InvitationParams,
  InvitationView,
  PortalSession,
  PortalSignInBody,
} from './portal-session.schemas.js';
import { portalAudit } from '../http/audit-context.js';
import { partnerUserOf, type PartnerUserIdentity } from './partner-user-identity.js';

const tags = ['Portal'];
const security = portalSecurity;

/** The session as the portal shows it: the person, their clinic, the environment, the second factor. */
export async function portalSessionView(ctx: AppContext, user: PartnerUserIdentity): Promise<Static<typeof PortalSession>> {
  const account = await portalAccountOf(ctx, user);
  return {
    partner_user_id: user.partnerUserId,
    email: user.email,
    name: user.name,
    role: user.role,
    clinic_id: user.clinicId,
    clinic_name: account.clinicName,
    environment: ctx.config.env,
    totp_enabled: account.totpEnabled,
    idle_timeout_minutes: ctx.config.consoleIdleTimeoutMs / 60_000,
  };
}

/**
 * The partner portal's sign-in, session, invitations and second factor (issue 22; docs/portal.md).
 * The session is a cookie: HttpOnly, SameSite=Strict, Path=/, and Secure in production.
 */
export function portalSessionRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const cookieOptions = {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.config.env === 'production',
    path: '/',
  } as const;

  const sessionView = (user: PartnerUserIdentity) => portalSessionView(ctx, user);

  return async (app) => {
    await app.register(cookie, { hook: false });

    app.post(
      '/api/portal/session',
      {
        schema: {
          tags,
          operationId: 'portalSignIn',
          summary: 'Sign in to the partner portal',
          description:
            'Sets the session cookie. With two-step sign-in on, `totp_code` is needed too: without it (or with a wrong one) the answer is 401 naming `totp_code`. Five failed sign-ins for one email within 15 minutes lock it for 15 minutes (429).',
          body: PortalSignInBody,
          response: {
            200: Envelope(PortalSession),
            400: errorRef('Validation error.'),
            401: errorRef('Email or password is incorrect, or the authenticator code is missing or wrong (`details.totp_code`).'),
            403: errorRef('A sign-in from another origin.'),
            429: errorRef('Too many failed sign-ins: `retry_after` and Retry-After say when to retry.'),
          },
        },
      },
      async (request, reply) => {
        const succeeded = await admitPortalAttempt(ctx, request, reply);
        const outcome = await signInPartnerUser(ctx, {
          email: request.body.email,
          password: request.body.password,
          totpCode: request.body.totp_code,
        });
        if (outcome.kind !== 'signed_in') throw signInRefusal(outcome, reply);
        await succeeded();
        request.log.info({ partnerUserId: outcome.user.partnerUserId }, 'portal user signed in');
        reply.setCookie(PORTAL_SESSION_COOKIE, outcome.token, { ...cookieOptions, maxAge: SESSION_MAX_AGE_MS / 1000 });
        return { success: true as const, data: await sessionView(outcome.user), message: 'Signed in' };
      },
    );

    app.get(
      '/api/portal/session',
      {
        schema: {
          tags,
          security,
          operationId: 'portalGetSession',
          summary: 'Who is signed in to the portal',
          response: { 200: Envelope(PortalSession), ...portalErrors },
        },
      },
      async (request) => ({ success: true as const, data: await sessionView(partnerUserOf(request)), message: 'Session' }),
    );

    app.delete(
      '/api/portal/session',
      {
        schema: {
          tags,
          security,
          operationId: 'portalSignOut',
          summary: 'Sign out of the portal',
          response: { 200: Envelope(Type.Object({ signed_out: Type.Boolean() })), ...portalErrors },
        },
      },
      async (request, reply) => {
        const token = requestCookie(request, PORTAL_SESSION_COOKIE);
        if (token) await signOutPartnerUser(ctx, token);
        reply.clearCookie(PORTAL_SESSION_COOKIE, cookieOptions);
        return { success: true as const, data: { signed_out: true }, message: 'Signed out' };
      },
    );

    app.get(
      '/api/portal/invitations/:token',
      {
        schema: {
          tags,
          operationId: 'portalGetInvitation',
          summary: 'What an invitation link is for',
          description: 'No session needed: the link\u2019s token is the credential. 404 for a used, replaced or expired link.',
          params: InvitationParams,
          response: { 200: Envelope(InvitationView), 400: errorRef('Validation error.'), 404: errorRef('No usable invitation.') },
        },
      },
      async (request) => ({
        success: true as const,
        data: await describeInvitation(ctx, request.params.token),
        message: 'Invitation',
      }),
    );

    app.post(
      '/api/portal/invitations/accept',
      {
        schema: {
          tags,
          operationId: 'portalAcceptInvitation',
          summary: 'Set your name and password through an invitation link',
          description:
            'Uses the link up (it cannot be used twice) and ends any session of the account; then sign in. The password follows the staff\u2019s rules.',
          body: AcceptInvitationBody,
          response: {
            200: Envelope(Type.Object({ email: Type.String() }, { additionalProperties: false })),
            400: errorRef('Validation error (a weak password names `password`).'),
            403: errorRef('A request from another origin.'),
            404: errorRef('No usable invitation.'),
          },
        },
      },
      async (request) => ({
        success: true as const,
        data: await acceptInvitation(ctx, request.body, { requestId: request.id, clientAddress: clientAddress(request) }),
        message: 'Password set: sign in',
      }),
    );

    registerTotpRoutes(app, ctx);
  };
}

function registerTotpRoutes(app: Parameters<FastifyPluginAsyncTypebox>[0], ctx: AppContext): void {
  const account = (request: FastifyRequest) => partnerUserOf(request);
  const answer = async (request: FastifyRequest, message: string) => ({
    success: true as const,
    data: await portalSessionView(ctx, account(request)),
    message,
  });

  app.post(
    '/api/portal/account/totp',
    {
      schema: {
        tags,
        security,
        operationId: 'portalStartTotp',
        summary: 'Start setting up two-step sign-in',
        description:
          'A new secret for an authenticator app (shown once); sign-in asks for no code until a code confirms it. 409 when two-step sign-in is already on.',
        response: { 200: Envelope(TotpEnrollment), ...portalErrors, 409: errorRef('Two-step sign-in is already on.') },
      },
    },
    async (request) => ({
      success: true as const,
      data: await startTotpEnrollment(ctx, 'partner_users', account(request).partnerUserId),
      message: 'Scan the secret with your authenticator app, then confirm with a code',
    }),
  );

  app.post(
    '/api/portal/account/totp/confirm',
    {
      schema: {
        tags,
        security,
        operationId: 'portalConfirmTotp',
        summary: 'Turn two-step sign-in on with a code',
        body: TotpCodeBody,
        response: {
          200: Envelope(PortalSession),
          ...portalErrors,
          409: errorRef('Nothing is being set up, or it is already on.'),
        },
      },
    },
    async (request) => {
      const user = account(request);
      await confirmTotpEnrollment(
        ctx,
        'partner_users',
        user.partnerUserId,
        request.body.code,
        portalAudit(request, user),
        user.clinicId,
      );
      return answer(request, 'Two-step sign-in is on');
    },
  );

  app.delete(
    '/api/portal/account/totp',
    {
      schema: {
        tags,
        security,
        operationId: 'portalDisableTotp',
        summary: 'Turn two-step sign-in off with a code',
        body: TotpCodeBody,
        response: { 200: Envelope(PortalSession), ...portalErrors, 409: errorRef('Two-step sign-in is not on.') },
      },
    },
    async (request) => {
      const user = account(request);
      await disableTotp(ctx, 'partner_users', user.partnerUserId, request.body.code, portalAudit(request, user), user.clinicId);
      return answer(request, 'Two-step sign-in is off');
    },
  );
}

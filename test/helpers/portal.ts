import { expect } from 'vitest';
import { invitePartnerUser } from '../../src/portal/partner-user.service.js';
import type { PartnerUserRole } from '../../src/portal/partner-user.tables.js';
import type { PartnerUserIdentity } from '../../src/portal/partner-user-identity.js';
import type { Reply, TestApp } from './test-app.js';

/** The host the portal's tests call, and its origin (what a browser on the portal sends). */
export const PORTAL_HOST = 'portal.test';
export const PORTAL_ORIGIN = `http://${PORTAL_HOST}`;
/** A password the strength judge accepts. */
export const PORTAL_PASSWORD = 'correct horse battery staple portal';

let people = 0;

/** The audit context of the tests' invitations: someone at the command line. */
const invitingOperator = {
  actor: { type: 'command_line' as const, operatorName: 'test operator' },
  requestId: null,
  clientAddress: null,
};

export interface PortalInvitation {
  email: string;
  partnerUserId: string;
  token: string;
}

/** Invites a new person of `clinicId` (as an operator at the command line would). */
export async function invitePartnerUserForTest(
  t: TestApp,
  clinicId: string,
  role: PartnerUserRole,
  email = `person${++people}-${role}@clinic.example`,
): Promise<PortalInvitation> {
  const invitation = await invitePartnerUser(t.ctx, { clinicId, email, role }, invitingOperator);
  return { email, partnerUserId: invitation.partner_user.partner_user_id, token: invitation.token };
}

/** Headers of a browser on the portal's own origin, with `cookie` when given. */
export function portalHeaders(cookie?: string): Record<string, string> {
  return {
    host: PORTAL_HOST,
    origin: PORTAL_ORIGIN,
    'content-type': 'application/json',
    accept: 'application/json',
    ...(cookie ? { cookie } : {}),
  };
}

/** A portal request with these headers (a body only when given). */
export function portalRequest(
  t: TestApp,
  headers: Record<string, string>,
  method: string,
  url: string,
  body?: unknown,
): Promise<Reply> {
  const { 'content-type': _contentType, ...withoutBody } = headers;
  return t.request(method, url, body === undefined ? { headers: withoutBody } : { headers, body });
}

/** Signs in with the portal's sign-in route; answers the reply and the session cookie (`name=value`). */
export async function portalSignInWith(
  t: TestApp,
  email: string,
  password: string,
  totpCode?: string,
): Promise<{ reply: Reply; cookie: string }> {
  const reply = await t.request('POST', '/api/portal/session', {
    headers: portalHeaders(),
    body: { email, password, ...(totpCode === undefined ? {} : { totp_code: totpCode }) },
  });
  const setCookie = reply.headers['set-cookie'];
  const cookie = (Array.isArray(setCookie) ? setCookie[0] : setCookie)?.split(';')[0] ?? '';
  return { reply, cookie };
}

/**
 * A person of `clinicId` with role `role`, invited, their password set through the link, signed in:
 * the headers to send with `t.request` (cookie and own origin), and who they are.
 */
export async function portalSignIn(
  t: TestApp,
  clinicId: string,
  role: PartnerUserRole,
): Promise<{ headers: Record<string, string>; user: PartnerUserIdentity; email: string }> {
  const invitation = await invitePartnerUserForTest(t, clinicId, role);
  const accepted = await t.request('POST', '/api/portal/invitations/accept', {
    headers: portalHeaders(),
    body: { token: invitation.token, name: `Pat ${role}`, password: PORTAL_PASSWORD },
  });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  const { reply, cookie } = await portalSignInWith(t, invitation.email, PORTAL_PASSWORD);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return {
    headers: portalHeaders(cookie),
    email: invitation.email,
    user: {
      partnerUserId: invitation.partnerUserId,
      clinicId,
      email: invitation.email,
      name: `Pat ${role}`,
      role,
    },
  };
}

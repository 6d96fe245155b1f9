import { randomUUID } from 'node:crypto';
import type { AuditContext } from '../../src/audit/audit-actor.js';
import { acceptInvitation, invitePartnerUser } from '../../src/portal/partner-user.service.js';
import type { PortalUser } from '../../src/portal/portal-user.js';
import type { TestApp } from './test-app.js';

/*
 * pdata's stand-in for the lead's test/helpers/portal.ts (same signature): take main's version on merge.
 */

const PASSWORD = 'correct horse battery staple 42';
/** `inject` sends `Host: localhost:80`: the portal's own origin, as the guard computes it. */
const OWN_ORIGIN = 'http://localhost:80';
const OPERATOR: AuditContext = { actor: { type: 'operator' }, requestId: null, clientAddress: null };

/** A new portal user of `clinicId` with `role`, invited, activated and signed in: the headers of their requests. */
export async function portalSignIn(
  t: TestApp,
  clinicId: string,
  role: 'developer' | 'viewer',
): Promise<{ headers: Record<string, string>; user: PortalUser }> {
  const email = `${role}-${randomUUID()}@example.com`;
  const invitation = await invitePartnerUser(t.ctx, { clinicId, email, role }, OPERATOR);
  await acceptInvitation(
    t.ctx,
    { token: invitation.token, name: `Portal ${role}`, password: PASSWORD },
    {
      requestId: null,
      clientAddress: null,
    },
  );
  const res = await t.request('POST', '/api/portal/session', {
    headers: { origin: OWN_ORIGIN, 'content-type': 'application/json' },
    body: { email, password: PASSWORD },
  });
  if (res.status !== 200) throw new Error(`portal sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  const setCookie = res.headers['set-cookie'];
  const cookie = (Array.isArray(setCookie) ? setCookie : [setCookie ?? ''])
    .map((line) => line.split(';')[0] ?? '')
    .find((pair) => pair.startsWith('portal_session='));
  if (!cookie) throw new Error('portal sign-in set no portal_session cookie');
  const user: PortalUser = {
    partnerUserId: invitation.partner_user.partner_user_id,
    clinicId,
    email,
    name: `Portal ${role}`,
    role,
  };
  return { headers: { cookie, origin: OWN_ORIGIN }, user };
}

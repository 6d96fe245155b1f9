// Over 250 lines on purpose: a valid request of every portal route with a text field, in one list the fuzz walks.
import { totpCode } from '../../src/accounts/totp.js';
import { encodeCursor } from '../../src/db/keyset-page.js';
import { encodeHoldCursor } from '../../src/holds/held-orders-cursor.js';
import { expectOk, type OrderSetup } from '../helpers/factories.js';
import { invitePartnerUserForTest, PORTAL_PASSWORD, portalHeaders, portalSignIn } from '../helpers/portal.js';
import type { TestApp, TestClinic } from '../helpers/test-app.js';
import { registerEndpoint } from '../webhooks/support.js';
import {
  anHourAgo,
  failedDelivery,
  freshAddress,
  freshClinic,
  heldOrderIn,
  orderIn,
  REFUSING_URL,
} from './text-world-support.js';
import type { BaseRequest, TextWorld } from './text-world.js';

/**
 * The partner portal's part of the text fuzz (issue 22): a developer of the setup's clinic signed in
 * through the portal's routes, and a valid request of every portal route with a text field. A
 * portal request without headers of its own is sent with this developer's session (text-targets.ts).
 */
export interface PortalWorld {
  /** The developer's session: its cookie, the portal's host and own origin (no content type: a body adds it). */
  headers: Record<string, string>;
  /** An endpoint of the setup's clinic that the disable and enable bases switch, and no other base uses. */
  switchedWebhookId: string;
  /** The second page of each portal list, as the portal returned it. */
  cursors: { sandbox: string; deliveries: string };
}

/** A session's headers for requests with and without a body (text-targets.ts adds the content type to a body). */
const withoutContentType = (headers: Record<string, string>): Record<string, string> => {
  const { 'content-type': _contentType, ...rest } = headers;
  return rest;
};

/** A developer of `clinicId` signed in through the portal's routes: the headers of the session. */
async function developerOf(t: TestApp, clinicId: string): Promise<Record<string, string>> {
  return withoutContentType((await portalSignIn(t, clinicId, 'developer')).headers);
}

/** Builds the portal's part of a world, on the setup's clinic (`webhookId`: an endpoint with failed deliveries). */
export async function createPortalWorld(t: TestApp, setup: OrderSetup, webhookId: string): Promise<PortalWorld> {
  const headers = await developerOf(t, setup.clinic.clinicId);
  const { webhookId: switchedWebhookId } = await registerEndpoint(t, setup.clinic, `${REFUSING_URL}/switched`);
  const secondPage = async (list: string) =>
    expectOk(await t.request('GET', `/api/portal/${list}`, { headers }), list).next_cursor as string;
  return {
    headers,
    switchedWebhookId,
    cursors: {
      sandbox: await secondPage('sandbox/orders?limit=1'),
      deliveries: await secondPage(`deliveries?webhook_id=${webhookId}&limit=1`),
    },
  };
}

/** A portal request of the signed-in developer (for what a base makes before its own request). */
async function portalCall(world: TextWorld, method: string, url: string, body?: unknown, headers = world.portal.headers) {
  const reply = await world.t.request(method, url, {
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body,
  });
  return expectOk(reply, `${method} ${url}`);
}

/** A new person of the setup's clinic who has set a password and not signed in: their email. */
async function activePartnerUser(world: TextWorld): Promise<string> {
  const invitation = await invitePartnerUserForTest(world.t, world.setup.clinic.clinicId, 'viewer');
  const accepted = await world.t.request('POST', '/api/portal/invitations/accept', {
    headers: portalHeaders(),
    body: { token: invitation.token, name: 'Fuzz Person', password: PORTAL_PASSWORD },
  });
  expectOk(accepted, 'invitation acceptance');
  return invitation.email;
}

/** Sign-ins of one person before the next is made: each may fail once, and 5 failures lock an email. */
const SIGN_INS_PER_PERSON = 4;
const signingIn = new WeakMap<TextWorld, { email: string; uses: number }>();

/** Someone to sign in as (`activePartnerUser`, made anew every few sign-ins: setting a password costs a hash). */
async function personToSignIn(world: TextWorld): Promise<string> {
  let person = signingIn.get(world);
  if (person === undefined || person.uses >= SIGN_INS_PER_PERSON) {
    person = { email: await activePartnerUser(world), uses: 0 };
    signingIn.set(world, person);
  }
  person.uses += 1;
  return person.email;
}

/**
 * A new developer of the setup's clinic signed in, with two-step sign-in started (`confirmed`: and
 * on): the headers of that session and a code its next check accepts (the next step's, within the window).
 */
async function developerWithTotp(
  world: TextWorld,
  confirmed: boolean,
): Promise<{ headers: Record<string, string>; code: string }> {
  const headers = await developerOf(world.t, world.setup.clinic.clinicId);
  const { secret } = await portalCall(world, 'POST', '/api/portal/account/totp', undefined, headers);
  const now = world.t.ctx.clock().getTime();
  if (confirmed)
    await portalCall(world, 'POST', '/api/portal/account/totp/confirm', { code: totpCode(secret, new Date(now)) }, headers);
  return { headers, code: totpCode(secret, new Date(now + (confirmed ? 30_000 : 0))) };
}

/** A new API key of the setup's clinic, made in the portal: for bases that roll or revoke (the setup's own key is left alone). */
async function portalKey(world: TextWorld): Promise<string> {
  return (await portalCall(world, 'POST', '/api/portal/keys')).api_key.api_key_id;
}

/** A new clinic with a developer signed in: for bases that add webhook endpoints (10 a clinic at most). */
async function freshPortalClinic(world: TextWorld): Promise<{ clinic: TestClinic; headers: Record<string, string> }> {
  const clinic = await freshClinic(world);
  return { clinic, headers: await developerOf(world.t, clinic.clinicId) };
}

const switched = (world: TextWorld, action: 'enable' | 'disable') =>
  portalCall(world, 'POST', `/api/portal/webhooks/${world.portal.switchedWebhookId}/${action}`);

/** Every portal route with text fields, by `METHOD /url`, with a valid request. */
export const PORTAL_BASES: Record<string, BaseRequest> = {
  // A person signs in at most 4 times (5 failures lock an email), each time from an address of its own (20 a minute lock one).
  'POST /api/portal/session': async (w) => ({
    headers: withoutContentType(portalHeaders()),
    body: { email: await personToSignIn(w), password: PORTAL_PASSWORD },
    remoteAddress: freshAddress(),
  }),
  'GET /api/portal/invitations/:token': async (w) => ({
    headers: withoutContentType(portalHeaders()),
    params: { token: (await invitePartnerUserForTest(w.t, w.setup.clinic.clinicId, 'viewer')).token },
  }),
  'POST /api/portal/invitations/accept': async (w) => ({
    headers: withoutContentType(portalHeaders()),
    body: {
      token: (await invitePartnerUserForTest(w.t, w.setup.clinic.clinicId, 'viewer')).token,
      name: 'Fuzz Person',
      password: PORTAL_PASSWORD,
    },
  }),
  'POST /api/portal/account/totp/confirm': async (w) => {
    const { headers, code } = await developerWithTotp(w, false);
    return { headers, body: { code } };
  },
  'DELETE /api/portal/account/totp': async (w) => {
    const { headers, code } = await developerWithTotp(w, true);
    return { headers, body: { code } };
  },
  'POST /api/portal/keys': (w) => ({
    body: {
      scopes: ['orders:read', 'webhooks:write'],
      expires_at: new Date(w.t.ctx.clock().getTime() + 30 * 24 * 3_600_000).toISOString(),
    },
  }),
  'POST /api/portal/keys/:apiKeyId/roll': async (w) => ({
    params: { apiKeyId: await portalKey(w) },
    body: { expires_in_hours: 1 },
  }),
  'POST /api/portal/keys/:apiKeyId/revoke': async (w) => ({ params: { apiKeyId: await portalKey(w) } }),
  'GET /api/portal/requests': (w) => ({
    query: {
      status: '4xx',
      method: 'GET',
      route: '/api/external/medication-order/:id',
      since: '2026-01-01T00:00:00.000Z',
      until: '2100-01-01T00:00:00.000Z',
      request_id: w.orderId,
      limit: '1',
      cursor: encodeCursor({ createdAt: '2026-11-25T00:00:00.000Z', id: w.orderId }),
    },
  }),
  'GET /api/portal/sandbox/orders': (w) => ({ query: { limit: '1', cursor: w.portal.cursors.sandbox } }),
  'POST /api/portal/sandbox/orders/:orderId/advance': async (w) => ({
    params: { orderId: await orderIn(w, 'pending') },
    body: { status: 'processing' },
  }),
  'POST /api/portal/sandbox/orders/:orderId/hold': async (w) => ({
    params: { orderId: await orderIn(w, 'pending') },
    body: { reason_code: 'other', waiting_on: 'partner', message: 'A test hold' },
  }),
  'POST /api/portal/sandbox/orders/:orderId/resume': async (w) => ({ params: { orderId: await heldOrderIn(w) } }),
  'GET /api/portal/holds': (w) => ({
    query: {
      limit: '1',
      cursor: encodeHoldCursor({ part: 'partner', at: { createdAt: '2026-11-25T00:00:00.000Z', id: w.orderId } }),
    },
  }),
  'POST /api/portal/holds/:orderId/response': async (w) => ({
    params: { orderId: await heldOrderIn(w) },
    body: {
      message: 'The strength is 0.5 mg.',
      address: { addressLine1: '12 Harbor Road', addressLine2: 'Unit 4', city: 'Portland', state: 'ME', postalCode: '04101' },
    },
  }),
  // The order's journey (issue 31): one order of the clinic, as the partner API reads it.
  'POST /api/portal/sandbox/orders/:orderId/shipments/:shipmentId/events': async (w) => {
    const orderId = await orderIn(w, 'shipped');
    const order = expectOk(await w.t.partner(w.setup.clinic.apiKey).get(`/api/external/medication-order/${orderId}`), 'read');
    return {
      params: { orderId, shipmentId: order.shipments[0].shipment_id as string },
      body: {
        status: 'in_transit',
        occurred_at: '2026-01-02T10:00:00.000Z',
        location: 'Memphis, TN',
        description: 'Departed the facility',
        estimated_delivery_date: '2026-01-05',
      },
    };
  },
  'GET /api/portal/orders/:orderId': (w) => ({ params: { orderId: w.orderId } }),
  'POST /api/portal/webhooks': async (w) => ({
    headers: (await freshPortalClinic(w)).headers,
    body: { url: 'https://partner.example.com/hooks', max_in_flight: 5 },
  }),
  'PATCH /api/portal/webhooks/:webhookId': (w) => ({
    params: { webhookId: w.webhookId },
    body: { max_in_flight: 5, max_per_second: null },
  }),
  'POST /api/portal/webhooks/:webhookId/disable': async (w) => {
    await switched(w, 'enable');
    return { params: { webhookId: w.portal.switchedWebhookId } };
  },
  'POST /api/portal/webhooks/:webhookId/enable': async (w) => {
    await switched(w, 'disable');
    return { params: { webhookId: w.portal.switchedWebhookId } };
  },
  'POST /api/portal/webhooks/:webhookId/rotate-secret': (w) => ({
    params: { webhookId: w.webhookId },
    body: { previous_valid_hours: 1 },
  }),
  'POST /api/portal/webhooks/:webhookId/test': (w) => ({ params: { webhookId: w.webhookId } }),
  'POST /api/portal/webhooks/:webhookId/recover': (w) => ({ params: { webhookId: w.webhookId }, body: { since: anHourAgo() } }),
  'GET /api/portal/deliveries': (w) => ({
    query: {
      status: 'failed',
      event_type: 'webhook.test',
      webhook_id: w.webhookId,
      since: '2020-01-01T00:00:00.000Z',
      until: '2100-01-01T00:00:00.000Z',
      limit: '1',
      cursor: w.portal.cursors.deliveries,
    },
  }),
  'GET /api/portal/deliveries/:deliveryId': (w) => ({ params: { deliveryId: w.deliveryId } }),
  'POST /api/portal/deliveries/:deliveryId/resend': async (w) => ({
    params: { deliveryId: await failedDelivery(w.t, w.setup.clinic, w.webhookId) },
  }),
};

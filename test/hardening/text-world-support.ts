import { randomBytes } from 'node:crypto';
import { advanceOrder, createOrder, expectOk } from '../helpers/factories.js';
import type { TestApp, TestClinic } from '../helpers/test-app.js';
import type { TextWorld } from './text-world.js';

/* What the text fuzz's bases (text-world.ts, text-world-portal.ts) make their fresh records with. */

/** A closed port on this machine: a webhook sent there fails at once (connection refused). */
export const REFUSING_URL = 'http://127.0.0.1:9/hooks/orders';

/** Ids and names no earlier call used (carriers and medications are unique by them). */
export const unique = () => randomBytes(4).toString('hex');

export const anHourAgo = () => new Date(Date.now() - 60 * 60 * 1000).toISOString();

/** A clinic with a key of its own: for bases that would fill the setup's clinic up (10 webhook endpoints at most) or revoke its key. */
export const freshClinic = (world: TextWorld): Promise<TestClinic> => world.t.createClinic();

/** A webhook test call to the refusing endpoint: a failed delivery, answered at once. */
export async function failedDelivery(t: TestApp, clinic: TestClinic, webhookId: string): Promise<string> {
  const reply = await t
    .partner(clinic.apiKey)
    .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: webhookId });
  return expectOk(reply, 'webhook test call').delivery_id;
}

/** A new order of the setup's clinic, moved on to `status`: for bases that change an order's status. */
export async function orderIn(world: TextWorld, status: 'pending' | 'processing' | 'shipped'): Promise<string> {
  const id = await createOrder(world.t, world.setup);
  if (status !== 'pending') await advanceOrder(world.t, world.setup.clinic, id, status);
  return id;
}

/** A new order of the world's clinic, put on hold by the pharmacy (waiting on the partner). */
export async function heldOrderIn(world: TextWorld): Promise<string> {
  const id = await orderIn(world, 'pending');
  const res = await world.t.operator.post(`/api/admin/medication-requests/${id}/hold`, {
    reason_code: 'address_undeliverable',
    message: 'The carrier cannot deliver.',
  });
  if (res.status !== 200) throw new Error(`hold failed with ${res.status}: ${JSON.stringify(res.body)}`);
  return id;
}

/** An order of the world held for a clinical reason (issue 39): its id and the hold's, for a pharmacist's override. */
export async function clinicalHoldIn(world: TextWorld): Promise<{ id: string; hold_id: string }> {
  const id = await orderIn(world, 'pending');
  const res = await world.t.operator.post(`/api/admin/medication-requests/${id}/hold`, {
    reason_code: 'allergy_conflict',
    message: 'Checking the allergy.',
  });
  if (res.status !== 200) throw new Error(`hold failed with ${res.status}: ${JSON.stringify(res.body)}`);
  return { id, hold_id: (res.body as { data: { holds: { hold_id: string }[] } }).data.holds[0]?.hold_id ?? '' };
}

/**
 * A client address no earlier call used (a /64 each): the fuzz's hundreds of failed sign-ins would
 * otherwise meet the limit of 20 failed authentications a minute per address (tested elsewhere).
 */
let addresses = 0;
export const freshAddress = (): string => `2001:db8:${(addresses++).toString(16)}::1`;

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChange } from '../../src/changes/run-change.js';
import { isoNow } from '../../src/clock.js';
import { dispatchOutbox } from '../../src/delivery/dispatcher.js';
import { EVENT_TYPES, type OutboxEventType } from '../../src/events/event-types.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { deliveriesOf, emitEvent } from './support.js';

const URL_A = 'https://partner.example.com/hooks/a';
const URL_B = 'https://partner.example.com/hooks/b';

describe.each(DIALECTS)('event types per endpoint (issue 31, item 6) on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  const register = (clinic: TestClinic, body: Record<string, unknown>) =>
    t.partner(clinic.apiKey).post('/api/external/webhook', { clinic_id: clinic.clinicId, ...body });
  const listed = async (clinic: TestClinic) =>
    (await t.partner(clinic.apiKey).get('/api/external/webhook')).body.data as {
      webhook_id: string;
      event_types: string[] | null;
    }[];

  it('when an endpoint is registered with event_types, then duplicates are dropped (first-seen order) and the reads show the list; without, null', async () => {
    const clinic = await t.createClinic();
    const some = await register(clinic, {
      webhook_url: URL_A,
      event_types: ['order.delivered', 'order.created', 'order.delivered'],
    });
    expect(some.status, JSON.stringify(some.body)).toBe(200);
    const all = await register(clinic, { webhook_url: URL_B });
    expect(all.status).toBe(200);
    const rows = await listed(clinic);
    expect(rows.find((r) => r.webhook_id === some.body.data.webhook_id)?.event_types).toEqual([
      'order.delivered',
      'order.created',
    ]);
    expect(rows.find((r) => r.webhook_id === all.body.data.webhook_id)?.event_types).toBeNull();
  });

  it('when event_types names an unknown type or is empty, then 400 names event_types and lists the valid ones', async () => {
    const clinic = await t.createClinic();
    const unknown = await register(clinic, { webhook_url: URL_A, event_types: ['order.created', 'order.teleported'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.event_types).toContain('order.teleported');
    for (const type of EVENT_TYPES) expect(unknown.body.error.details.event_types).toContain(type);
    const empty = await register(clinic, { webhook_url: URL_A, event_types: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.event_types).toContain('use null for every type');
    expect(await listed(clinic)).toEqual([]);

    const ok = await register(clinic, { webhook_url: URL_A });
    const patch = await t
      .partner(clinic.apiKey)
      .patch(`/api/external/webhook/${ok.body.data.webhook_id}`, { event_types: ['nope'] });
    expect(patch.status).toBe(400);
    expect(patch.body.error.details.event_types).toContain('nope');
  });

  it('when the update changes event_types, then the endpoint shows and applies the new list, and null restores every type', async () => {
    const clinic = await t.createClinic();
    const { webhook_id: id } = (await register(clinic, { webhook_url: URL_A })).body.data;
    const patched = await t.partner(clinic.apiKey).patch(`/api/external/webhook/${id}`, { event_types: ['order.delivered'] });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data.event_types).toEqual(['order.delivered']);
    const created = await emitEvent(t.ctx, clinic.clinicId, 'order.created');
    await dispatchOutbox(t.ctx);
    expect(await deliveriesOf(t.ctx, created)).toEqual([]);

    const reset = await t.partner(clinic.apiKey).patch(`/api/external/webhook/${id}`, { event_types: null });
    expect(reset.body.data.event_types).toBeNull();
    const again = await emitEvent(t.ctx, clinic.clinicId, 'order.created');
    await dispatchOutbox(t.ctx);
    expect(await deliveriesOf(t.ctx, again)).toHaveLength(1);
  });

  it('when events are fanned out, then a restricted endpoint gets only its types and a null one every type, including a type added later', async () => {
    const clinic = await t.createClinic();
    const only = (await register(clinic, { webhook_url: URL_A, event_types: ['order.delivered'] })).body.data
      .webhook_id as string;
    const every = (await register(clinic, { webhook_url: URL_B })).body.data.webhook_id as string;
    const delivered = await emitEvent(t.ctx, clinic.clinicId, 'order.delivered');
    const created = await emitEvent(t.ctx, clinic.clinicId, 'order.created');
    // A type the server does not list yet: an endpoint with null receives it when it comes.
    const later = await runChange(t.ctx, null, (change) =>
      change.event(
        { clinicId: clinic.clinicId, type: 'order.teleported' as OutboxEventType, payload: { medication_request_id: 'x' } },
        isoNow(t.ctx.clock),
      ),
    );
    await dispatchOutbox(t.ctx);
    const endpointsOf = async (eventId: string) => (await deliveriesOf(t.ctx, eventId)).map((d) => d.endpoint_id).sort();
    expect(await endpointsOf(delivered)).toEqual([only, every].sort());
    expect(await endpointsOf(created)).toEqual([every]);
    expect(await endpointsOf(later)).toEqual([every]);
  });
});

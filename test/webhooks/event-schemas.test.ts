import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_PAYLOADS, type WebhookEventType } from '../../src/events/event.schemas.js';
import { eventSchemaName } from '../../src/openapi-webhooks.js';
import { advanceOrder, createOrder, createOrderSetup, itemBody, outboxEventsOf, requestRefill } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { fastEnv, registerEndpoint } from './support.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

describe.each(DIALECTS)('the webhook event schemas of the OpenAPI document on %s', (dialect) => {
  let t: TestApp;
  let doc: any;
  /** Validates `data` against the `data` of the event's body as the document publishes it. */
  let problemsOf: (type: WebhookEventType, data: unknown) => unknown;
  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: fastEnv() });
    doc = (await t.request('GET', '/openapi.json')).body;
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv, ['uuid', 'date-time']);
    problemsOf = (type, data) => {
      const validate = ajv.compile(doc.components.schemas[eventSchemaName(type)].properties.data);
      return validate(data) ? null : validate.errors;
    };
  });
  afterAll(async () => t.close());

  it('when orders are created, shipped, delivered, held, resumed, cancelled and refilled, then every event written matches its published schema', async () => {
    const setup = await createOrderSetup(t);
    const delivered = await createOrder(t, setup, { medication_requests: [itemBody({ refills: '2' })] });
    await advanceOrder(t, setup.clinic, delivered, 'delivered');
    const refill = await requestRefill(t, setup.clinic, delivered);
    const cancelled = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, cancelled, 'processing');
    const api = t.partner(setup.clinic.apiKey);
    expect(
      (await api.post(`/api/external/sandbox/medication-order/${cancelled}/hold`, { reason_code: 'out_of_stock' })).status,
    ).toBe(200);
    expect((await api.post(`/api/external/sandbox/medication-order/${cancelled}/resume`)).status).toBe(200);
    expect((await api.post(`/api/external/sandbox/medication-order/${cancelled}/hold`, { reason_code: 'other' })).status).toBe(
      200,
    );
    await advanceOrder(t, setup.clinic, cancelled, 'cancelled');

    const events = [
      ...(await outboxEventsOf(t, delivered)),
      ...(await outboxEventsOf(t, refill.medication_order_id)),
      ...(await outboxEventsOf(t, cancelled)),
    ];
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set(Object.keys(EVENT_PAYLOADS).filter((type) => type !== 'webhook.test')),
    );
    for (const event of events) {
      expect(
        problemsOf(event.type as WebhookEventType, event.payload),
        `${event.type} ${JSON.stringify(event.payload)}`,
      ).toBeNull();
    }
  });

  it('when the test call is sent, then its body matches the published webhook.test schema', async () => {
    const clinic = await t.createClinic();
    const receiver = await WebhookReceiver.start([{ status: 204, body: '' }]);
    try {
      const { webhookId, secret } = await registerEndpoint(t, clinic, receiver.url());
      const res = await t
        .partner(clinic.apiKey)
        .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: webhookId });
      expect(res.status).toBe(200);
      const body = WebhookReceiver.verify(secret, receiver.received[0]!) as { type: WebhookEventType; data: unknown };
      expect(body.type).toBe('webhook.test');
      expect(problemsOf(body.type, body.data)).toBeNull();
    } finally {
      await receiver.stop();
    }
  });
});

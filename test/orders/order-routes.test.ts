import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceOrder, createOrder, createOrderSetup, type OrderSetup } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

describe.each(DIALECTS)('order routes in the HTTP pipeline on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  it('when the OpenAPI document is read, then every order route is listed with its body and responses', async () => {
    const res = await t.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths as Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>>;
    const expected: [string, string, string[]][] = [
      ['/api/external/medication-order', 'post', ['200', '400', '401', '403', '404']],
      ['/api/external/medication-order/{id}', 'get', ['200', '401', '404']],
      ['/api/external/medication-order/{id}/cancel', 'post', ['200', '401', '404', '409']],
      ['/api/external/refill-request', 'post', ['200', '400', '401']],
      ['/api/external/refill-request/{id}', 'get', ['200', '401', '404']],
      ['/api/external/sandbox/medication-order/{id}/advance', 'post', ['200', '401', '404', '409']],
      ['/api/admin/medication-requests', 'get', ['200', '400', '401']],
      ['/api/admin/medication-requests/{id}', 'get', ['200', '404']],
      ['/api/admin/medication-requests/{id}/status', 'post', ['200', '400', '404', '409']],
    ];
    for (const [path, method, statuses] of expected) {
      const operation = paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      for (const status of statuses) expect(Object.keys(operation!.responses), `${method} ${path}`).toContain(status);
    }
    expect(paths['/api/external/medication-order']?.post?.requestBody).toBeDefined();
  });

  it('when the sandbox advance or a cancellation is posted without a body, then it is accepted', async () => {
    const id = await createOrder(t, setup);
    const advanced = await t.request('POST', `/api/external/sandbox/medication-order/${id}/advance`, {
      headers: { 'x-api-key': setup.clinic.apiKey, accept: 'application/json' },
    });
    expect(advanced.status).toBe(200);
    expect(advanced.body.data.status).toBe('processing');
    const cancelled = await t.request('POST', `/api/external/medication-order/${id}/cancel`, {
      headers: { 'x-api-key': setup.clinic.apiKey, 'content-type': 'application/json' },
      payload: '',
    });
    expect(cancelled.status).toBe(200);
  });

  it('when an order is read, then no field outside the documented view leaves the server', async () => {
    const id = await createOrder(t, setup);
    await advanceOrder(t, setup.clinic, id, 'shipped');
    const res = await t.partner(setup.clinic.apiKey).get(`/api/external/medication-order/${id}`);
    expect(Object.keys(res.body.data).sort()).toEqual(
      [
        'medication_request_id',
        'clinic_id',
        'patient_id',
        'practitioner_id',
        'status',
        'prescription_id',
        'is_refrigerated',
        'signature_required',
        'saturday_delivery',
        'shipment_group_id',
        'medication_requests',
        'refills',
        'shipping',
        'tracking_number',
        'shipped_at',
        'delivered_at',
        'cancelled_at',
        'created_at',
        'updated_at',
        'refill_of',
        'chain_origin_id',
        'refill_request_id',
        'status_history',
        'hold',
        'holds',
        'hold_history',
        'shipping_address',
        'shipments',
      ].sort(),
    );
    expect(JSON.stringify(res.body)).not.toContain('Grace');
  });
});

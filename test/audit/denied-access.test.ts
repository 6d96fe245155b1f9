import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder, createOrderSetup, requestRefill, advanceOrder, type OrderSetup } from '../helpers/factories.js';
import { TestApp, type Reply, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { registerEndpoint } from '../webhooks/support.js';
import { auditRows } from './support.js';

/**
 * A partner's attempt at another clinic's record (issue 21, item 6): the same 404 as for an id that
 * exists nowhere, and an `access_denied` row in the audit trail naming the partner, the record and
 * its real clinic. An id that exists nowhere leaves no such row.
 */
describe.each(DIALECTS)('denied accesses to another clinic\u2019s records on %s', (dialect) => {
  let t: TestApp;
  let a: OrderSetup;
  let b: OrderSetup;
  let orderB: string;
  let refillB: string;
  let webhookB: string;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    a = await createOrderSetup(t, { clinicName: 'Clinic A' });
    b = await createOrderSetup(t, { clinicName: 'Clinic B' });
    orderB = await createOrder(t, b);
    const refillOf = await createOrder(t, b);
    await advanceOrder(t, b.clinic, refillOf, 'shipped');
    refillB = (await requestRefill(t, b.clinic, refillOf)).refill_request_id;
    webhookB = (await registerEndpoint(t, b.clinic, 'https://clinic-b.example.com/hooks')).webhookId;
  });
  afterAll(async () => t.close());

  /** The 404 body without its request id (each request has its own). */
  const withoutRequestId = (res: Reply) => ({ ...res.body, error: { ...res.body.error, request_id: undefined } });

  const deniedRows = async (resourceId: string) =>
    (await auditRows(t.ctx)).filter((row) => row.action === 'access_denied' && row.resource_id === resourceId);

  type Attempt = (partner: TestClinic, id: string) => Promise<Reply>;
  const cases: [string, string, () => string, Attempt][] = [
    ['reads a patient', 'patient', () => b.patientId, (p, id) => t.partner(p.apiKey).get(`/api/external/patient/${id}`)],
    [
      'reads a practitioner',
      'practitioner',
      () => b.practitionerId,
      (p, id) => t.partner(p.apiKey).get(`/api/external/practitioner/${id}`),
    ],
    [
      'reads an order',
      'medication_request',
      () => orderB,
      (p, id) => t.partner(p.apiKey).get(`/api/external/medication-order/${id}`),
    ],
    [
      'cancels an order',
      'medication_request',
      () => orderB,
      (p, id) => t.partner(p.apiKey).post(`/api/external/medication-order/${id}/cancel`),
    ],
    [
      'reads a refill request',
      'refill_request',
      () => refillB,
      (p, id) => t.partner(p.apiKey).get(`/api/external/refill-request/${id}`),
    ],
    [
      'changes a webhook endpoint',
      'webhook_endpoint',
      () => webhookB,
      (p, id) => t.partner(p.apiKey).patch(`/api/external/webhook/${id}`, { max_in_flight: 2 }),
    ],
  ];

  it.each(cases)(
    'when a partner of clinic A %s of clinic B, then the same 404 as for an unknown id, and the trail records the denied access with B',
    async (_what, type, targetOf, attempt) => {
      const target = targetOf();
      const denied = await attempt(a.clinic, target);
      const unknown = await attempt(a.clinic, randomUUID());
      expect(denied.status).toBe(404);
      expect(withoutRequestId(denied)).toEqual(withoutRequestId(unknown));
      expect(JSON.stringify(denied.body)).not.toContain(b.clinic.clinicId);

      const rows = (await deniedRows(target)).filter((row) => row.request_id === denied.headers['x-request-id']);
      expect(rows).toEqual([
        expect.objectContaining({
          actor_type: 'partner',
          actor_id: a.clinic.apiKeyId,
          clinic_id: a.clinic.clinicId,
          resource_type: type,
          resource_id: target,
          resource_clinic_id: b.clinic.clinicId,
          request_id: denied.headers['x-request-id'],
        }),
      ]);
      const afterUnknown = (await auditRows(t.ctx)).filter((row) => row.request_id === unknown.headers['x-request-id']);
      expect(afterUnknown.filter((row) => row.action === 'access_denied')).toEqual([]);
    },
  );

  it('when a partner asks for an id that exists nowhere, then no denied access is recorded', async () => {
    const unknown = randomUUID();
    const res = await t.partner(a.clinic.apiKey).get(`/api/external/patient/${unknown}`);
    expect(res.status).toBe(404);
    expect((await auditRows(t.ctx)).filter((row) => row.resource_id === unknown)).toEqual([]);
  });

  it('when a partner reads its own record, then it is a read, not a denied access', async () => {
    const res = await t.partner(b.clinic.apiKey).get(`/api/external/patient/${b.patientId}`);
    expect(res.status).toBe(200);
    const own = (await auditRows(t.ctx)).filter(
      (row) => row.resource_id === b.patientId && row.request_id === res.headers['x-request-id'],
    );
    expect(own).toEqual([expect.objectContaining({ action: 'read', clinic_id: b.clinic.clinicId, resource_clinic_id: null })]);
  });

  it('when the operator lists the trail by action, then the denied access is shown with the record\u2019s real clinic', async () => {
    const denied = await t.partner(a.clinic.apiKey).get(`/api/external/patient/${b.patientId}`);
    expect(denied.status).toBe(404);
    const trail = await t.operator.get(`/api/admin/audit-events?action=access_denied&resource_id=${b.patientId}`);
    expect(trail.status, JSON.stringify(trail.body)).toBe(200);
    expect(trail.body.data.items[0]).toMatchObject({
      actor: { type: 'partner', api_key_id: a.clinic.apiKeyId, clinic_id: a.clinic.clinicId },
      clinic_id: a.clinic.clinicId,
      action: 'access_denied',
      resource_type: 'patient',
      resource_id: b.patientId,
      resource_clinic_id: b.clinic.clinicId,
      request_id: denied.headers['x-request-id'],
    });
  });
});

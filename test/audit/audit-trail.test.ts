import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEventTable } from '../../src/audit/audit.tables.js';
import { issueApiKey } from '../../src/clinics/clinic.service.js';
import { itemBody, TEST_FORMULARY } from '../helpers/factories.js';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import { OPERATOR_TOKEN, TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { fakeClock } from '../webhooks/support.js';
import { auditRows, refuseAuditRows } from './support.js';

const PARTNER_ADDRESS = '203.0.113.7';
const OPERATOR_ADDRESS = '198.51.100.9';

type Row = Omit<AuditEventTable, 'id'>;

describe.each(DIALECTS)('the audit trail on %s', (dialect) => {
  let t: TestApp;
  const time = fakeClock(Date.parse('2030-03-01T09:00:00.000Z'));

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock });
  });
  afterAll(async () => t.close());

  /** One call from a given client address; answers the body and the X-Request-Id the server gave. */
  async function call(
    who: { apiKey: string } | 'operator',
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
  ): Promise<{ status: number; data: any; requestId: string }> {
    time.advance(1000);
    const res = await t.app.inject({
      method,
      url,
      remoteAddress: who === 'operator' ? OPERATOR_ADDRESS : PARTNER_ADDRESS,
      headers: {
        ...(who === 'operator' ? { authorization: `Bearer ${OPERATOR_TOKEN}` } : { 'x-api-key': who.apiKey }),
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    const json = res.json();
    return { status: res.statusCode, data: json.data ?? json.error, requestId: String(res.headers['x-request-id']) };
  }

  const partnerRow = (clinic: TestClinic, requestId: string, action: string, type: string, id: string): Row => ({
    at: time.clock().toISOString(),
    actor_type: 'partner',
    actor_id: clinic.apiKeyId,
    actor_email: null,
    actor_name: null,
    clinic_id: clinic.clinicId,
    action,
    resource_type: type,
    resource_id: id,
    request_id: requestId,
    client_address: PARTNER_ADDRESS,
    client_request_id: null,
    resource_clinic_id: null,
  });
  const operatorRow = (clinicId: string, requestId: string, action: string, type: string, id: string): Row => ({
    ...partnerRow({ clinicId, apiKeyId: '', apiKey: '' }, requestId, action, type, id),
    actor_type: 'operator',
    actor_id: null,
    actor_name: 'Operator token',
    client_address: OPERATOR_ADDRESS,
  });

  it('when a partner and the operator go through a whole flow, then every creation, read, change and cancellation is recorded with its actor, request id and address', async () => {
    const clinic = await t.createClinic({ formulary: TEST_FORMULARY });
    const partner = { apiKey: clinic.apiKey };
    const expected: Row[] = [];
    const ok = async (
      who: typeof partner | 'operator',
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      url: string,
      body: unknown,
      rows: (data: any, requestId: string) => Row[],
    ) => {
      const res = await call(who, method, url, body);
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.data)}`).toBe(200);
      expected.push(...rows(res.data, res.requestId));
      return res.data;
    };

    const practitioner = await ok(partner, 'POST', '/api/external/practitioner', practitionerBody(clinic.clinicId), (d, r) => [
      partnerRow(clinic, r, 'create', 'practitioner', d.practitioner_id),
    ]);
    const practitionerId: string = practitioner.practitioner_id;
    await ok(partner, 'GET', `/api/external/practitioner/${practitionerId}`, undefined, (_d, r) => [
      partnerRow(clinic, r, 'read', 'practitioner', practitionerId),
    ]);
    const patient = await ok(
      partner,
      'POST',
      '/api/external/patient',
      patientBody(clinic.clinicId, { practitioner_id: practitionerId }),
      (d, r) => [partnerRow(clinic, r, 'create', 'patient', d.patient_id)],
    );
    const patientId: string = patient.patient_id;
    await ok(partner, 'GET', `/api/external/patient/${patientId}`, undefined, (_d, r) => [
      partnerRow(clinic, r, 'read', 'patient', patientId),
    ]);
    const orderBody = {
      patient_id: patientId,
      practitioner_id: practitionerId,
      clinic_id: clinic.clinicId,
      carrier_id: 'fedex',
      service_id: 'fedex_ground',
      medication_requests: [itemBody()],
    };
    const order = await ok(partner, 'POST', '/api/external/medication-order', orderBody, (d, r) => [
      partnerRow(clinic, r, 'create', 'medication_request', d.medication_request_id),
    ]);
    const orderId: string = order.medication_request_id;
    await ok(partner, 'GET', `/api/external/medication-order/${orderId}`, undefined, (_d, r) => [
      partnerRow(clinic, r, 'read', 'medication_request', orderId),
    ]);

    // The pharmacy works the order: its list, the order, two status changes. The list names the
    // patient and the order shows their address: both are reads of the patient.
    await ok('operator', 'GET', `/api/admin/medication-requests?clinic_id=${clinic.clinicId}`, undefined, (_d, r) => [
      operatorRow(clinic.clinicId, r, 'read', 'medication_request', orderId),
      operatorRow(clinic.clinicId, r, 'read', 'patient', patientId),
    ]);
    await ok('operator', 'GET', `/api/admin/medication-requests/${orderId}`, undefined, (_d, r) => [
      operatorRow(clinic.clinicId, r, 'read', 'medication_request', orderId),
      operatorRow(clinic.clinicId, r, 'read', 'patient', patientId),
    ]);
    for (const change of [{ status: 'processing' }, { status: 'shipped', tracking_number: '123456789012' }]) {
      await ok('operator', 'POST', `/api/admin/medication-requests/${orderId}/status`, change, (_d, r) => [
        operatorRow(clinic.clinicId, r, 'transition', 'medication_request', orderId),
      ]);
    }

    const refill = await ok(partner, 'POST', '/api/external/refill-request', { medication_request_id: orderId }, (d, r) => [
      partnerRow(clinic, r, 'create', 'medication_request', d.medication_order_id),
      partnerRow(clinic, r, 'create', 'refill_request', d.refill_request_id),
    ]);
    await ok(partner, 'GET', `/api/external/refill-request/${refill.refill_request_id}`, undefined, (_d, r) => [
      partnerRow(clinic, r, 'read', 'refill_request', refill.refill_request_id),
    ]);

    const receiver = await WebhookReceiver.start();
    try {
      const hooks: string[] = [];
      for (const url of [receiver.url(), `${receiver.url()}/second`]) {
        const hook = await ok(
          partner,
          'POST',
          '/api/external/webhook',
          { clinic_id: clinic.clinicId, webhook_url: url },
          (d, r) => [partnerRow(clinic, r, 'create', 'webhook_endpoint', d.webhook_id)],
        );
        hooks.push(hook.webhook_id);
      }
      // A list is one read per resource listed.
      await ok(partner, 'GET', '/api/external/webhook', undefined, (_d, r) =>
        hooks.map((id) => partnerRow(clinic, r, 'read', 'webhook_endpoint', id)),
      );
      // Changing the limits is an update; its answer (the endpoint) is part of the change, not a read.
      await ok(partner, 'PATCH', `/api/external/webhook/${hooks[1]!}`, { max_in_flight: 5 }, (_d, r) => [
        partnerRow(clinic, r, 'update', 'webhook_endpoint', hooks[1]!),
      ]);
      const test = await ok(
        partner,
        'POST',
        '/api/external/webhook/test',
        { clinic_id: clinic.clinicId, webhook_id: hooks[0] },
        (_d, r) => [partnerRow(clinic, r, 'test', 'webhook_endpoint', hooks[0]!)],
      );
      await ok('operator', 'GET', `/api/admin/webhook-deliveries/${test.delivery_id}`, undefined, (_d, r) => [
        operatorRow(clinic.clinicId, r, 'read', 'webhook_delivery', test.delivery_id),
      ]);
      await ok('operator', 'POST', `/api/admin/webhook-deliveries/${test.delivery_id}/retry`, undefined, (_d, r) => [
        operatorRow(clinic.clinicId, r, 'retry', 'webhook_delivery', test.delivery_id),
      ]);
      await ok('operator', 'POST', `/api/admin/webhook-endpoints/${hooks[0]!}/enable`, undefined, (_d, r) => [
        operatorRow(clinic.clinicId, r, 'update', 'webhook_endpoint', hooks[0]!),
      ]);
      await ok('operator', 'GET', `/api/admin/webhook-endpoints?clinic_id=${clinic.clinicId}`, undefined, (_d, r) =>
        hooks.map((id) => operatorRow(clinic.clinicId, r, 'read', 'webhook_endpoint', id)),
      );
      await ok('operator', 'GET', `/api/admin/webhook-deliveries?clinic_id=${clinic.clinicId}`, undefined, (_d, r) => [
        operatorRow(clinic.clinicId, r, 'read', 'webhook_delivery', test.delivery_id),
      ]);
      await ok(partner, 'DELETE', '/api/external/webhook', { clinic_id: clinic.clinicId, webhook_id: hooks[1] }, (_d, r) => [
        partnerRow(clinic, r, 'delete', 'webhook_endpoint', hooks[1]!),
      ]);
    } finally {
      await receiver.stop();
    }

    await ok(partner, 'POST', `/api/external/medication-order/${refill.medication_order_id}/cancel`, undefined, (_d, r) => [
      partnerRow(clinic, r, 'cancel', 'medication_request', refill.medication_order_id),
    ]);
    await ok(partner, 'POST', `/api/external/sandbox/medication-order/${orderId}/advance`, {}, (_d, r) => [
      partnerRow(clinic, r, 'transition', 'medication_request', orderId),
    ]);

    const rows = (await auditRows(t.ctx)).filter((row) => row.clinic_id === clinic.clinicId);
    expect(rows).toEqual([...expected].sort((a, b) => key(a).localeCompare(key(b))));
  });

  it('when an idempotent retry replays a creation to another key of the clinic, then the replay is recorded as a read of what was created, by that key', async () => {
    const clinic = await t.createClinic();
    const second = await issueApiKey(t.ctx, clinic.clinicId, null);
    const create = (apiKey: string) => {
      time.advance(1000);
      return t.app.inject({
        method: 'POST',
        url: '/api/external/patient',
        remoteAddress: PARTNER_ADDRESS,
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': 'replayed-patient' },
        payload: JSON.stringify(patientBody(clinic.clinicId)),
      });
    };
    const first = await create(clinic.apiKey);
    const patientId: string = first.json().data.patient_id;
    const createdAt = time.clock().toISOString();
    const replay = await create(second.api_key);
    expect(replay.headers['idempotent-replayed']).toBe('true');

    const rows = (await auditRows(t.ctx)).filter((row) => row.resource_id === patientId);
    expect(rows).toEqual([
      { ...partnerRow(clinic, String(first.headers['x-request-id']), 'create', 'patient', patientId), at: createdAt },
      partnerRow(
        { ...clinic, apiKeyId: second.api_key_id },
        String(replay.headers['x-request-id']),
        'read',
        'patient',
        patientId,
      ),
    ]);
  });

  it('when a change is refused, then it leaves no audit row', async () => {
    const clinic = await t.createClinic({ formulary: TEST_FORMULARY });
    const partner = { apiKey: clinic.apiKey };
    const practitioner = await call(partner, 'POST', '/api/external/practitioner', practitionerBody(clinic.clinicId));
    const patient = await call(partner, 'POST', '/api/external/patient', patientBody(clinic.clinicId));
    const order = await call(partner, 'POST', '/api/external/medication-order', {
      patient_id: patient.data.patient_id,
      practitioner_id: practitioner.data.practitioner_id,
      clinic_id: clinic.clinicId,
      carrier_id: 'fedex',
      service_id: 'fedex_ground',
      medication_requests: [itemBody()],
    });
    const before = await auditRows(t.ctx);

    const illegal = await call('operator', 'POST', `/api/admin/medication-requests/${order.data.medication_request_id}/status`, {
      status: 'delivered',
    });
    expect(illegal.status).toBe(409);
    const missing = await call(partner, 'GET', '/api/external/patient/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);

    expect(await auditRows(t.ctx)).toEqual(before);
  });

  it('when the audit row cannot be written, then the change it records is rolled back with it', async () => {
    const clinic = await t.createClinic();
    const restore = await refuseAuditRows(t.ctx, "new.resource_type = 'patient'");
    try {
      const res = await call({ apiKey: clinic.apiKey }, 'POST', '/api/external/patient', patientBody(clinic.clinicId));
      expect(res.status).toBe(500);
    } finally {
      await restore();
    }
    const patients = await t.ctx.db.selectFrom('patients').select('id').where('clinic_id', '=', clinic.clinicId).execute();
    expect(patients).toEqual([]);
  });

  it('when a row of the trail is updated or deleted, then the database refuses: the table is append-only', async () => {
    const clinic = await t.createClinic();
    await call({ apiKey: clinic.apiKey }, 'POST', '/api/external/patient', patientBody(clinic.clinicId));
    expect((await auditRows(t.ctx)).length).toBeGreaterThan(0);
    await expect(t.ctx.db.updateTable('audit_events').set({ action: 'read' }).execute()).rejects.toThrow(/append-only/);
    await expect(t.ctx.db.deleteFrom('audit_events').execute()).rejects.toThrow(/append-only/);
    expect((await auditRows(t.ctx)).length).toBeGreaterThan(0);
  });
});

const key = (row: Row) => `${row.at}|${row.action}|${row.resource_type}|${row.resource_id}`;

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemBody } from '../helpers/factories.js';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import {
  databaseUrlOf,
  killServerProcesses,
  startServerProcess,
  type ServerProcess,
  PRODUCTION_BEHIND_PROXY,
  FORWARDED_HTTPS,
} from '../helpers/server-process.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';

const OPERATOR_TOKEN = 'instances-test-operator-token-0223456789';
const N = 20;

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** Two server processes on one PostgreSQL schema: what two instances behind a load balancer are. */
describe.skipIf(!DIALECTS.includes('postgres'))('idempotency keys across instances', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let servers: ServerProcess[];
  let apiKey: string;
  let orderBody: Record<string, unknown>;
  let clinicId: string;

  const call = async (
    server: ServerProcess,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<Answer> => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { ...FORWARDED_HTTPS, ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: await res.json(), headers: res.headers };
  };
  const operator = (server: ServerProcess, path: string, body?: unknown) =>
    call(server, body === undefined ? 'GET' : 'POST', path, { authorization: `Bearer ${OPERATOR_TOKEN}` }, body);
  const partner = (server: ServerProcess, path: string, body: unknown, key?: string) =>
    call(
      server,
      'POST',
      path,
      { 'x-api-key': apiKey, accept: 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body,
    );
  const ordersOfClinic = async () => {
    const res = await operator(servers[0]!, `/api/admin/medication-requests?clinic_id=${clinicId}&limit=100`);
    expect(res.status).toBe(200);
    return res.body.data.items as unknown[];
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const env = {
      ...PRODUCTION_BEHIND_PROXY,
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATABASE_URL: databaseUrlOf(database),
      RATE_LIMIT_PER_MINUTE: '100000',
      RUN_WORKER: 'false',
    };
    // One first, so that it migrates; the other finds the schema ready.
    servers = [await startServerProcess(env)];
    servers.push(await startServerProcess(env));
    const [first] = servers as [ServerProcess];

    // A clinic as a production operator provisions it, then its practitioner and patient.
    clinicId = (await operator(first, '/api/admin/clinics', { name: 'Two Instance Clinic' })).body.data.clinic_id;
    apiKey = (await operator(first, `/api/admin/clinics/${clinicId}/api-keys`, {})).body.data.api_key;
    // A production server ships nowhere until the operator says where (docs/shipping.md#licensed-states).
    const licensed = await call(
      first,
      'PUT',
      '/api/admin/licensed-states',
      { authorization: `Bearer ${OPERATOR_TOKEN}` },
      {
        states: ['CA', 'NY', 'TX'],
      },
    );
    expect(licensed.status).toBe(200);
    expect((await operator(first, `/api/admin/clinics/${clinicId}/medications`, { name: 'Semaglutide' })).status).toBe(200);
    const practitioner = await partner(first, '/api/external/practitioner', practitionerBody(clinicId));
    expect(practitioner.status).toBe(200);
    const patient = await partner(
      first,
      '/api/external/patient',
      patientBody(clinicId, { practitioner_id: practitioner.body.data.practitioner_id }),
    );
    expect(patient.status).toBe(200);
    orderBody = {
      patient_id: patient.body.data.patient_id,
      practitioner_id: practitioner.body.data.practitioner_id,
      clinic_id: clinicId,
      carrier_id: 'fedex',
      service_id: 'fedex_ground',
      medication_requests: [itemBody()],
    };
    // Building the server and starting two processes takes a while on a loaded machine.
  }, 120_000);
  afterAll(async () => {
    await killServerProcesses();
    await database.drop();
  });

  it('when an order made on one instance is retried with its key on the other, then the other replays it and creates nothing', async () => {
    const [first, second] = servers as [ServerProcess, ServerProcess];
    const before = (await ordersOfClinic()).length;
    const created = await partner(first, '/api/external/medication-order', orderBody, 'cross-instance-1');
    expect(created.status).toBe(200);

    const retried = await partner(second, '/api/external/medication-order', orderBody, 'cross-instance-1');
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(created.body);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.headers.get('idempotent-original-request-id')).toBe(created.headers.get('x-request-id'));
    expect((await ordersOfClinic()).length).toBe(before + 1);

    const changed = await partner(
      second,
      '/api/external/medication-order',
      { ...orderBody, medication_requests: [itemBody({ dose: '0.5mg' })] },
      'cross-instance-1',
    );
    expect(changed.status).toBe(422);
    expect(changed.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it(`when ${N} identical orders with one key arrive at once on both instances, then exactly one order is created`, async () => {
    const before = (await ordersOfClinic()).length;
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        partner(servers[i % 2]!, '/api/external/medication-order', orderBody, 'burst-across-1'),
      ),
    );
    expect((await ordersOfClinic()).length).toBe(before + 1);
    const originals = answers.filter((a) => a.status === 200 && a.headers.get('idempotent-replayed') === null);
    expect(originals).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 200) expect(answer.body).toEqual(originals[0]?.body);
      else expect(answer.status).toBe(409);
    }
  });
});

import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import {
  databaseUrlOf,
  killServerProcesses,
  printServerProcessesIfFailed,
  sandboxCredentials,
  startServerProcess,
} from '../helpers/server-process.js';
import { OPERATOR_TOKEN } from '../helpers/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';
import { expectValidFhir } from './fhir-validator.js';

/**
 * Issue 32's "Done when", as an EHR lives it: the built server as a process on a real port, plain
 * HTTP. The EHR discovers the server (SMART configuration, CapabilityStatement), gets a token for
 * `system/*.rs` with a signed assertion (private_key_jwt, ES384, `aud` the token endpoint as SMART
 * backend services say), reads a patient's MedicationRequests and MedicationDispenses (the fill's
 * Medication with its lot and beyond-use date) and pages through a search. Every resource and Bundle
 * it receives is validated by Medplum's validator. A client restricted to patients gets only
 * `system/Patient.rs`, and another clinic sees none of it.
 */

const databases: TestDatabase[] = [];
afterEach(printServerProcessesIfFailed);
afterAll(async () => {
  await killServerProcesses();
  await Promise.all(databases.map((database) => database.drop()));
});

const FHIR_JSON = 'application/fhir+json';

describe.each(DIALECTS)('an EHR on the FHIR API over HTTP on %s', { timeout: 90_000 }, (dialect) => {
  it('when an EHR discovers the server, gets a system/*.rs token and reads a patient\u2019s prescriptions and fills, then everything validates', async () => {
    const database = await createTestDatabase(dialect);
    databases.push(database);
    const server = await startServerProcess({ DATABASE_URL: databaseUrlOf(database) });
    const { clinicId, apiKey } = sandboxCredentials(server);
    const send = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
      const res = await fetch(path.startsWith('http') ? path : `${server.baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, headers: res.headers, body: await res.json() };
    };
    const ok = async (answer: Promise<{ status: number; body: any }>, what: string) => {
      const { status, body } = await answer;
      if (status !== 200) throw new Error(`${what} answered ${status}: ${JSON.stringify(body)}`);
      return body.data ?? body;
    };
    const partner = (method: string, path: string, body?: unknown) => send(method, path, body, { 'x-api-key': apiKey });
    const pharmacy = (method: string, path: string, body?: unknown) =>
      send(method, path, body, { authorization: `Bearer ${OPERATOR_TOKEN}` });

    // The clinic's records: a prescriber, a patient and two orders; one shipped, one filled.
    const practitionerId = (await ok(partner('POST', '/api/external/practitioner', practitionerBody(clinicId)), 'practitioner'))
      .practitioner_id as string;
    const patientId = (
      await ok(partner('POST', '/api/external/patient', patientBody(clinicId, { practitioner_id: practitionerId })), 'patient')
    ).patient_id as string;
    const order = async (medication: string, dose: string) =>
      (
        await ok(
          partner('POST', '/api/external/medication-order', {
            patient_id: patientId,
            practitioner_id: practitionerId,
            clinic_id: clinicId,
            carrier_id: 'fedex',
            service_id: 'fedex_ground',
            medication_requests: [
              { medication, dose, quantity: 150, direction: 'Take 5 mL by mouth three times daily', days_supply: 10 },
            ],
          }),
          medication,
        )
      ).medication_request_id as string;
    const shipped = await order('Semaglutide', '0.25mg');
    const filled = await order('Gabapentin', '250mg');
    await ok(pharmacy('POST', `/api/admin/medication-requests/${shipped}/status`, { status: 'processing' }), 'processing');
    await ok(
      pharmacy('POST', `/api/admin/medication-requests/${shipped}/status`, {
        status: 'shipped',
        tracking_number: '123456789012',
      }),
      'shipped',
    );
    await ok(pharmacy('POST', `/api/admin/medication-requests/${filled}/status`, { status: 'processing' }), 'processing');
    const itemId = (await ok(partner('GET', `/api/external/medication-order/${filled}`), 'read')).medication_requests[0]
      .id as string;
    await ok(
      pharmacy('POST', `/api/admin/medication-requests/${filled}/fill`, {
        items: [{ item_id: itemId, lot_number: 'GB-2611-07', compounded_at: '2026-11-20T15:00:00.000Z' }],
      }),
      'fill',
    );
    const budOf = (await ok(partner('GET', `/api/external/medication-order/${filled}`), 'read')).medication_requests[0].fill;
    expect(budOf.lot_number).toBe('GB-2611-07');

    // The EHR's key pair; the pharmacy registers its public half.
    const { publicKey, privateKey } = await generateKeyPair('ES384');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'ehr-1', alg: 'ES384', use: 'sig' };
    const registered = async (scopes: string[]) =>
      (await ok(pharmacy('POST', `/api/admin/clinics/${clinicId}/oauth-clients`, { scopes, jwks: { keys: [jwk] } }), 'client'))
        .client_id as string;
    const ehr = await registered(['patients:read', 'practitioners:read', 'orders:read', 'formulary:read']);

    // Discovery, without a credential.
    const smart = await ok(send('GET', '/.well-known/smart-configuration', undefined, {}), 'smart-configuration');
    expect(smart.grant_types_supported).toContain('client_credentials');
    expect(smart.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(smart.token_endpoint_auth_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS384', 'ES384']));
    expect(smart.capabilities).toContain('client-confidential-asymmetric');
    expect(smart.scopes_supported).toEqual(expect.arrayContaining(['system/*.rs', 'system/MedicationDispense.rs']));
    const metadata = await send('GET', '/fhir/R4/metadata', undefined, { accept: FHIR_JSON });
    expect(metadata.status).toBe(200);
    expectValidFhir(metadata.body);
    expect(metadata.body.rest[0].resource.map((r: any) => r.type)).toEqual(
      expect.arrayContaining([
        'Patient',
        'Practitioner',
        'Organization',
        'Medication',
        'MedicationRequest',
        'MedicationDispense',
      ]),
    );

    // A token for system/*.rs, the assertion's audience being the token endpoint.
    const token = async (clientId: string, scope: string) => {
      const assertion = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES384', kid: 'ehr-1' })
        .setIssuer(clientId)
        .setSubject(clientId)
        .setAudience(smart.token_endpoint as string)
        .setIssuedAt()
        .setExpirationTime('2m')
        .setJti(randomUUID())
        .sign(privateKey);
      const res = await fetch(smart.token_endpoint as string, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope,
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: assertion,
        }),
      });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body as { access_token: string; scope: string };
    };
    const granted = await token(ehr, 'system/*.rs');
    expect(granted.scope.split(' ').sort()).toEqual(
      [
        'system/Medication.rs',
        'system/MedicationDispense.rs',
        'system/MedicationRequest.rs',
        'system/Organization.rs',
        'system/Patient.rs',
        'system/Practitioner.rs',
      ].sort(),
    );
    const fhir = async (path: string, bearer = granted.access_token) => {
      const res = await send('GET', path.startsWith('http') ? path : `/fhir/R4${path}`, undefined, {
        authorization: `Bearer ${bearer}`,
        accept: FHIR_JSON,
      });
      expect(res.headers.get('content-type')).toBe('application/fhir+json; charset=utf-8');
      expectValidFhir(res.body);
      return res;
    };

    const patients = await fhir(`/Patient?identifier=urn:ietf:rfc:3986|urn:uuid:${patientId}`);
    expect(patients.body.entry.map((e: any) => e.resource.id)).toEqual([patientId]);

    const requests = await fhir(`/MedicationRequest?patient=${patientId}&intent=order&_include=MedicationRequest:medication`);
    const matches = requests.body.entry.filter((e: any) => e.search.mode === 'match').map((e: any) => e.resource);
    expect(matches.map((r: any) => [r.groupIdentifier.value, r.status]).sort()).toEqual(
      [
        [shipped, 'active'],
        [filled, 'active'],
      ].sort(),
    );
    const included = requests.body.entry.filter((e: any) => e.search.mode === 'include').map((e: any) => e.resource);
    expect(included.every((r: any) => r.resourceType === 'Medication')).toBe(true);
    expect(included.length).toBeGreaterThan(0);

    const dispenses = await fhir(`/MedicationDispense?patient=${patientId}`);
    const byOrder = new Map(dispenses.body.entry.map((e: any) => [e.resource.authorizingPrescription[0].reference, e.resource]));
    const fillDispense = byOrder.get(`MedicationRequest/${itemId}`) as any;
    expect(fillDispense).toMatchObject({ status: 'in-progress', whenPrepared: '2026-11-20T15:00:00.000Z' });
    const shippedDispense = [...byOrder.values()].find((d: any) => d !== fillDispense) as any;
    expect(shippedDispense.status).toBe('completed');
    expect(shippedDispense.whenHandedOver).toEqual(expect.any(String));

    const medication = await fhir(`/${fillDispense.medicationReference.reference}`);
    expect(medication.body.batch).toEqual({ lotNumber: 'GB-2611-07', expirationDate: budOf.beyond_use_date });
    expect(medication.body.ingredient.length).toBeGreaterThan(0);

    // Paging: one at a time, following each next link as given.
    const seen: string[] = [];
    let next: string | undefined = `/MedicationRequest?patient=${patientId}&intent=order&_count=1`;
    while (next !== undefined) {
      const page = await fhir(next);
      expect(page.body.total).toBe(2);
      seen.push(...page.body.entry.map((e: any) => e.resource.id));
      next = page.body.link.find((l: any) => l.relation === 'next')?.url;
      if (next !== undefined) expect(next.startsWith(`${server.baseUrl}/fhir/R4/MedicationRequest?`)).toBe(true);
    }
    expect(seen).toHaveLength(2);
    expect(new Set(seen).size).toBe(2);

    // A client restricted to patients gets only system/Patient.rs, and a 403 on prescriptions.
    const narrow = await token(await registered(['patients:read']), 'system/*.rs');
    expect(narrow.scope).toBe('system/Patient.rs');
    const refused = await send('GET', `/fhir/R4/MedicationRequest?patient=${patientId}`, undefined, {
      authorization: `Bearer ${narrow.access_token}`,
    });
    expect(refused.status).toBe(403);
    expectValidFhir(refused.body);

    // Another clinic sees nothing of it.
    const other = await ok(pharmacy('POST', '/api/admin/clinics', { name: 'Other Clinic' }), 'clinic');
    const otherKey = (await ok(pharmacy('POST', `/api/admin/clinics/${other.clinic_id}/api-keys`, {}), 'key')).api_key as string;
    const theirs = await send('GET', `/fhir/R4/Patient/${patientId}`, undefined, { 'x-api-key': otherKey, accept: FHIR_JSON });
    expect(theirs.status).toBe(404);
    const theirSearch = await send('GET', `/fhir/R4/MedicationDispense?patient=${patientId}`, undefined, {
      'x-api-key': otherKey,
    });
    expect(theirSearch.body.total).toBe(0);
  });
});

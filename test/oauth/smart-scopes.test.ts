import { decodeJwt, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/clinics/scopes.js';
import { createPatient } from '../helpers/factories.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';
import { assertion, assertionForm, bearer, createClient, FULL, requestToken } from './support.js';

const START = Date.parse('2031-05-06T07:08:10.000Z');
const ISSUER = 'urn:partner-fulfillment-api:development';
const HOST = 'fhir.pharmacy.test';
const ORDERS = '/api/external/medication-orders';

type Alg = 'ES256' | 'ES384' | 'RS384';

/** A private_key_jwt client of the clinic with `scopes`, and the key it signs with. */
interface KeyClient {
  clientId: string;
  privateKey: CryptoKey;
  alg: Alg;
}

/**
 * SMART backend services' scopes at POST /oauth/token (issue 32, Contracts 3): `system/<type>.rs`
 * (and v1's `.read`) granted as our scopes through fhir/smart-scopes.ts, which the partner guard then
 * enforces; the answer's `scope` names the SMART scopes. Every token here is asked for with
 * private_key_jwt, as an EHR's backend service does.
 */
describe.each(DIALECTS)('SMART scopes at /oauth/token on %s', (dialect) => {
  const time = fakeClock(START);
  let t: TestApp;
  let clinic: TestClinic;
  let patientId = '';
  let full: KeyClient;
  let patientsOnly: KeyClient;

  const keyClient = async (scopes: Scope[], alg: Alg = 'ES256'): Promise<KeyClient> => {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: randomUUID(), alg, use: 'sig' };
    const { clientId } = await createClient(t, clinic.clinicId, { scopes, jwks: { keys: [jwk] } });
    return { clientId, privateKey, alg };
  };

  /** A token request signed by `client`, its `aud` the issuer unless said. */
  const ask = async (client: KeyClient, scope: string | undefined, audience = ISSUER) => {
    const jwt = await assertion(client.privateKey, client.clientId, { now: time.now(), audience, alg: client.alg });
    return requestToken(t, { ...assertionForm(jwt), ...(scope === undefined ? {} : { scope }) }, { headers: { host: HOST } });
  };

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: time.clock });
    clinic = await t.createClinic();
    patientId = await createPatient(t, clinic);
    [full, patientsOnly] = await Promise.all([keyClient(FULL), keyClient(['patients:read'])]);
  });
  afterAll(async () => t.close());

  it('when a client asks for two types\u2019 .rs scopes, then the answer names them and the token carries our scopes for them', async () => {
    const res = await ask(full, 'system/Patient.rs system/MedicationRequest.rs');
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('system/Patient.rs system/MedicationRequest.rs');
    expect(decodeJwt(res.body.access_token).scope).toBe('patients:read orders:read');
  });

  it('when a client with every scope asks for system/*.rs, then it gets each of the six types and the four read scopes behind them', async () => {
    const res = await ask(full, 'system/*.rs');
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe(
      'system/Patient.rs system/Practitioner.rs system/Organization.rs system/Medication.rs system/MedicationRequest.rs system/MedicationDispense.rs',
    );
    expect(decodeJwt(res.body.access_token).scope).toBe('patients:read practitioners:read formulary:read orders:read');
  });

  it('when a client restricted to patients:read asks for system/*.rs, then it gets only system/Patient.rs, reads a patient and is refused orders', async () => {
    const res = await ask(patientsOnly, 'system/*.rs');
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('system/Patient.rs');
    const partner = bearer(t, res.body.access_token);
    const patient = await partner.get(`/api/external/patient/${patientId}`);
    expect(patient.status).toBe(200);
    expect(patient.body.data.patient_id).toBe(patientId);
    const orders = await partner.get(ORDERS);
    expect(orders.status).toBe(403);
    expect(orders.body.error.message).toBe('Forbidden: this access token lacks the scope orders:read');
  });

  it('when a token is granted system/MedicationRequest.rs only, then orders are read and patients refused', async () => {
    const res = await ask(full, 'system/MedicationRequest.rs');
    const partner = bearer(t, res.body.access_token);
    expect((await partner.get(ORDERS)).status).toBe(200);
    const patient = await partner.get(`/api/external/patient/${patientId}`);
    expect(patient.status).toBe(403);
    expect(patient.body.error.message).toBe('Forbidden: this access token lacks the scope patients:read');
  });

  it('when a client asks in SMART v1\u2019s form (system/Patient.read, system/*.read), then it is granted, named as it asked', async () => {
    const one = await ask(full, 'system/Patient.read');
    expect(one.status).toBe(200);
    expect(one.body.scope).toBe('system/Patient.read');
    expect(decodeJwt(one.body.access_token).scope).toBe('patients:read');
    const all = await ask(patientsOnly, 'system/*.read');
    expect(all.body.scope).toBe('system/Patient.read');
  });

  it('when SMART scopes and ours are asked together, then both are granted and named', async () => {
    const res = await ask(full, 'carriers:read system/Patient.rs');
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('carriers:read system/Patient.rs');
    expect(decodeJwt(res.body.access_token).scope).toBe('carriers:read patients:read');
  });

  it('when a client asks for a type whose scope it does not hold, then invalid_scope names the scope', async () => {
    const res = await ask(patientsOnly, 'system/Patient.rs system/MedicationRequest.rs');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_scope',
      error_description:
        'scope system/MedicationRequest.rs needs orders:read, which is not among this client\u2019s scopes (patients:read)',
    });
  });

  it('when a client that may read no FHIR resource asks for system/*.rs, then invalid_scope', async () => {
    const carriers = await keyClient(['carriers:read']);
    const res = await ask(carriers, 'system/*.rs');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_scope');
    expect(res.body.error_description).toContain('system/*.rs grants nothing');
  });

  it.each(['system/Patient.cruds', 'system/Patient.c', 'system/*.write', 'system/*.*', 'system/MedicationRequest.rus'])(
    'when a client asks for the write scope %s, then invalid_scope: the server is read-only',
    async (scope) => {
      const res = await ask(full, scope);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_scope',
        error_description: `scope ${scope} is not granted: this FHIR server is read-only: ask for .rs`,
      });
    },
  );

  it.each([
    ['system/Observation.rs', 'this FHIR server has no resource type Observation'],
    ['system/patient.rs', 'this FHIR server has no resource type patient'],
    ['system/constructor.rs', 'this FHIR server has no resource type constructor'],
    ['system/toString.read', 'this FHIR server has no resource type toString'],
    ['patient/Patient.rs', 'only system/ scopes are granted here'],
    ['user/*.read', 'only system/ scopes are granted here'],
    ['system/Patient.r', 'read and search are granted together'],
    ['system/Patient.rs?identifier=x', 'scopes with search parameters are not supported'],
  ])('when a client asks for %s, then invalid_scope says why', async (scope, why) => {
    const res = await ask(full, scope);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_scope');
    expect(res.body.error_description).toContain(why);
  });

  it('when a client asks for a scope of neither vocabulary, then invalid_scope as before', async () => {
    const res = await ask(full, 'openid');
    expect(res.status).toBe(400);
    expect(res.body.error_description).toMatch(/^scope openid is not among this client\u2019s scopes/);
  });

  it('when an EHR discovers the server and signs with RS384 for the advertised token endpoint, then it gets system/*.rs and reads a patient', async () => {
    const discovery = await t.request('GET', '/.well-known/smart-configuration', { headers: { host: HOST } });
    const { token_endpoint: tokenEndpoint, token_endpoint_auth_signing_alg_values_supported: algs } = discovery.body;
    expect(tokenEndpoint).toBe(`http://${HOST}/oauth/token`);
    expect(algs).toContain('RS384');
    const ehr = await keyClient(['patients:read', 'orders:read'], 'RS384');
    const res = await ask(ehr, 'system/*.rs', tokenEndpoint);
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('system/Patient.rs system/MedicationRequest.rs system/MedicationDispense.rs');
    expect((await bearer(t, res.body.access_token).get(`/api/external/patient/${patientId}`)).status).toBe(200);
  });

  it('when a client signs its assertion with ES384, then it is accepted', async () => {
    const res = await ask(await keyClient(['patients:read'], 'ES384'), 'system/Patient.rs');
    expect(res.status).toBe(200);
  });

  it('when an assertion names another server\u2019s token endpoint, then invalid_client', async () => {
    const res = await ask(full, 'system/Patient.rs', 'https://elsewhere.example/oauth/token');
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });
});

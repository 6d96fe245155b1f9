import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/clinics/clinic.service.js';
import { auditRows } from '../audit/support.js';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { expectValidFhir } from './fhir-validator.js';

/** The FHIR API's Patient, Practitioner and Organization, its searches, paging and refusals, over HTTP (issue 32). */
const BASE = '/fhir/R4';
const FHIR_JSON = 'application/fhir+json';

describe.each(DIALECTS)('FHIR people on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let other: TestClinic;
  const patients: string[] = [];
  /** The nth patient created (the test fails when there is none). */
  const patient = (n: number): string => patients[n] ?? expect.fail(`no patient ${n}`);
  let practitionerId: string;
  let otherPatientId: string;

  const fhir = (url: string, apiKey = clinic.apiKey, headers: Record<string, string> = {}) =>
    t.request('GET', `${BASE}${url}`, { headers: { 'x-api-key': apiKey, accept: FHIR_JSON, ...headers } });

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    clinic = await t.createClinic({ name: 'Maple Clinic' });
    other = await t.createClinic({ name: 'Other Clinic' });
    const names = [
      ['Grace', 'Hopper', 'female', '1980-12-09'],
      ['Ada', 'Lovelace', 'female', '1985-12-10'],
      ['Alan', 'Turing', 'male', '1980-06-23'],
      ['Gracie', 'Allen', 'female', '1990-07-26'],
      ['Edsger', 'Dijkstra', 'male', '1970-05-11'],
    ];
    for (const [first, last, gender, dob] of names) {
      const res = await t
        .partner(clinic.apiKey)
        .post('/api/external/patient', patientBody(clinic.clinicId, { first_name: first, last_name: last, gender, dob }));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      patients.push(res.body.data.patient_id);
    }
    const res = await t.partner(other.apiKey).post('/api/external/patient', patientBody(other.clinicId, { first_name: 'Grace' }));
    otherPatientId = res.body.data.patient_id;
    const practitioner = await t.partner(clinic.apiKey).post('/api/external/practitioner', practitionerBody(clinic.clinicId));
    expect(practitioner.status, JSON.stringify(practitioner.body)).toBe(200);
    practitionerId = practitioner.body.data.practitioner_id ?? practitioner.body.data.id;
  });
  afterAll(async () => t.close());

  it('when a patient is read, then it is a valid US Core Patient with our id, name, gender, birth date, telecom and address', async () => {
    const res = await fhir(`/Patient/${patient(0)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
    expectValidFhir(res.body);
    expect(res.body).toMatchObject({
      resourceType: 'Patient',
      id: patients[0],
      identifier: [{ system: 'urn:ietf:rfc:3986', value: `urn:uuid:${patient(0)}` }],
      name: [{ family: 'Hopper', given: ['Grace'] }],
      gender: 'female',
      birthDate: '1980-12-09',
      address: [{ line: ['2 Elm St', 'Apt 3'], city: 'Sacramento', state: 'CA', postalCode: '95814', country: 'US' }],
    });
    expect(res.body.telecom).toEqual(expect.arrayContaining([{ system: 'email', value: 'grace@example.com' }]));
  });

  it('when another clinic\u2019s patient or an unknown id is read, then both are the same 404 OperationOutcome, and the attempt is audited', async () => {
    const theirs = await fhir(`/Patient/${otherPatientId}`);
    const unknown = await fhir('/Patient/00000000-0000-7000-8000-000000000000');
    for (const res of [theirs, unknown]) {
      expect(res.status).toBe(404);
      expectValidFhir(res.body);
      expect(res.body.issue[0].code).toBe('not-found');
    }
    expect(JSON.stringify(theirs.body)).not.toContain('Grace');
    const denied = (await auditRows(t.ctx)).filter((row) => row.action === 'access_denied' && row.resource_id === otherPatientId);
    expect(denied).toHaveLength(1);
  });

  it('when patients are searched by name, then a case-insensitive starts-with over first and last names, in a valid searchset', async () => {
    const res = await fhir('/Patient?name=grac');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectValidFhir(res.body);
    expect(res.body).toMatchObject({ resourceType: 'Bundle', type: 'searchset', total: 2 });
    expect(res.body.entry.map((e: any) => e.resource.name[0].given[0]).sort()).toEqual(['Grace', 'Gracie']);
    expect(res.body.entry[0].fullUrl).toMatch(new RegExp(`^http://[^/]+/fhir/R4/Patient/`));
    expect(res.body.entry[0].search).toEqual({ mode: 'match' });
  });

  it('when patients are searched by birthdate and name, gender and name, _id and identifier, then each finds exactly its matches', async () => {
    const ids = async (query: string) => {
      const res = await fhir(`/Patient?${query}`);
      expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(200);
      expectValidFhir(res.body);
      return res.body.entry?.map((e: any) => e.resource.id).sort() ?? [];
    };
    expect(await ids('birthdate=1980&name=a')).toEqual([patients[2]]);
    expect(await ids('birthdate=ge1985-01-01&name=g')).toEqual([patients[3]]);
    expect(await ids('gender=male&name=Edsger')).toEqual([patients[4]]);
    expect(await ids(`_id=${patient(1)},${otherPatientId}`)).toEqual([patients[1]]);
    expect(await ids(`identifier=urn:ietf:rfc:3986|urn:uuid:${patient(1)}`)).toEqual([patients[1]]);
    expect(await ids(`identifier=http://example.org|${patient(1)}`)).toEqual([]);
    expect(await ids('name:exact=Ada')).toEqual([patients[1]]);
    expect(await ids('name:contains=URIN')).toEqual([patients[2]]);
    expect(await ids('name=%25')).toEqual([]);
  });

  it('when a search is paged with _count=2, then next links continue strictly after, total stays, and the last page has no next', async () => {
    const seen: string[] = [];
    let url: string | undefined = `${BASE}/Patient?_count=2`;
    let pages = 0;
    while (url !== undefined) {
      const res = await t.request('GET', url.replace(/^https?:\/\/[^/]+/, ''), { headers: { 'x-api-key': clinic.apiKey } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expectValidFhir(res.body);
      expect(res.body.total).toBe(5);
      seen.push(...res.body.entry.map((e: any) => e.resource.id));
      url = res.body.link.find((l: any) => l.relation === 'next')?.url;
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([...patients].sort());
  });

  it('when a continuation is forged or reused on another search, then 400 naming _cursor', async () => {
    const first = await fhir('/Patient?_count=1');
    const next = new URL(first.body.link.find((l: any) => l.relation === 'next').url);
    const cursor = next.searchParams.get('_cursor') as string;
    for (const query of [
      `_cursor=${cursor}&name=a`,
      '_cursor=bm90LWEtY3Vyc29y',
      '_cursor=%00',
      `_cursor=${Buffer.from('["x","y"]').toString('base64url')}`,
    ]) {
      const res = await fhir(`/Patient?${query}`);
      expect(res.status, query).toBe(400);
      expectValidFhir(res.body);
      expect(res.body.issue[0].expression).toEqual(['_cursor']);
    }
  });

  it('when search parameters are bad, then each is a 400 OperationOutcome naming the parameter', async () => {
    const cases: [string, string][] = [
      ['_count=0', '_count'],
      ['_count=1000', '_count'],
      ['_count=-1', '_count'],
      ['birthdate=yesterday', 'birthdate'],
      ['birthdate=1980-02-30', 'birthdate'],
      ['gender=robot', 'gender'],
      ['colour=blue', 'colour'],
      ['general-practitioner.name=x', 'general-practitioner.name'],
      ['_has:Observation:patient:code=1234', '_has:Observation:patient:code'],
      ['name:fuzzy=x', 'name:fuzzy'],
      ['_sort=name', '_sort'],
      ['_include=Patient:organization', '_include'],
      [Array.from({ length: 200 }, () => 'name=a').join('&'), 'name'],
      ['name=' + 'a,'.repeat(30) + 'a', 'name'],
    ];
    for (const [query, parameter] of cases) {
      const res = await fhir(`/Patient?${query}`);
      expect(res.status, `${query.slice(0, 60)}: ${JSON.stringify(res.body)}`).toBe(400);
      expectValidFhir(res.body);
      expect(res.body.issue[0].expression, query.slice(0, 60)).toEqual([parameter]);
    }
  });

  it('when prescriptions and fills are searched with a status outside their value sets, a chained patient or a bad reference, then 400s naming the parameter', async () => {
    const cases: [string, string][] = [
      [`/MedicationRequest?patient=${patient(0)}&intent=order&status=shipped`, 'status'],
      [`/MedicationRequest?patient=${patient(0)}&intent=plan,bogus`, 'intent'],
      [`/MedicationDispense?patient=${patient(0)}&status=delivered`, 'status'],
      ['/MedicationDispense?patient.name=Grace', 'patient.name'],
      ['/MedicationRequest?patient=Practitioner/123', 'patient'],
      ['/MedicationRequest?_include=MedicationRequest:requester', '_include'],
    ];
    for (const [url, parameter] of cases) {
      const res = await fhir(url);
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(400);
      expectValidFhir(res.body);
      expect(res.body.issue[0].expression, url).toEqual([parameter]);
    }
  });

  it('when a practitioner is read and searched by NPI and name, then it carries the NPI system', async () => {
    const read = await fhir(`/Practitioner/${practitionerId}`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expectValidFhir(read.body);
    const npi = read.body.identifier.find((i: any) => i.system === 'http://hl7.org/fhir/sid/us-npi').value;
    expect(npi).toMatch(/^\d{10}$/);
    expect(read.body.name[0]).toMatchObject({ family: 'Lovelace', given: ['Ada'] });
    for (const query of [`identifier=http://hl7.org/fhir/sid/us-npi|${npi}`, `identifier=${npi}`, 'name=love']) {
      const res = await fhir(`/Practitioner?${query}`);
      expectValidFhir(res.body);
      expect(
        res.body.entry?.map((e: any) => e.resource.id),
        query,
      ).toEqual([practitionerId]);
    }
    const theirs = await fhir(`/Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|${npi}`, other.apiKey);
    expect(theirs.body.total).toBe(0);
  });

  it('when the clinic reads its Organization, then it sees its own and not another\u2019s', async () => {
    const own = await fhir(`/Organization/${clinic.clinicId}`);
    expect(own.status).toBe(200);
    expectValidFhir(own.body);
    expect(own.body.name).toBe('Maple Clinic');
    expect((await fhir(`/Organization/${other.clinicId}`)).status).toBe(404);
    const search = await fhir('/Organization');
    expect(search.body.entry.map((e: any) => e.resource.id)).toEqual([clinic.clinicId]);
  });

  it('when the credential is missing, wrong, or the format is not JSON, then 401 with WWW-Authenticate, or 406, as OperationOutcomes', async () => {
    const none = await t.request('GET', `${BASE}/Patient`, {});
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    expectValidFhir(none.body);
    const badToken = await t.request('GET', `${BASE}/Patient`, { headers: { authorization: 'Bearer not-a-token' } });
    expect(badToken.status).toBe(401);
    expect(badToken.headers['www-authenticate']).toContain('error="invalid_token"');
    const xml = await fhir('/Patient', clinic.apiKey, { accept: 'application/fhir+xml' });
    expect(xml.status).toBe(406);
    expectValidFhir(xml.body);
    expect((await fhir('/Patient?_format=xml')).status).toBe(406);
    expect((await fhir('/Patient?_format=json')).status).toBe(200);
    expect((await fhir('/Patient', clinic.apiKey, { accept: 'application/json' })).status).toBe(200);
  });

  it('when a key is restricted to practitioners, then Patient is 403 and Practitioner answers', async () => {
    const key = await issueApiKey(t.ctx, clinic.clinicId, null, undefined, { scopes: ['practitioners:read'] });
    const patient = await fhir('/Patient', key.api_key);
    expect(patient.status).toBe(403);
    expectValidFhir(patient.body);
    expect(patient.body.issue[0].code).toBe('forbidden');
    expect((await fhir('/Practitioner', key.api_key)).status).toBe(200);
  });

  it('when the metadata is read without a credential, then a CapabilityStatement lists every resource with read and search', async () => {
    const res = await t.request('GET', `${BASE}/metadata`, {});
    expect(res.status).toBe(200);
    expectValidFhir(res.body);
    expect(res.body).toMatchObject({ resourceType: 'CapabilityStatement', fhirVersion: '4.0.1', kind: 'instance' });
    const patient = res.body.rest[0].resource.find((r: any) => r.type === 'Patient');
    expect(patient.interaction.map((i: any) => i.code)).toEqual(['read', 'search-type']);
    expect(patient.searchParam.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(['_id', 'identifier', 'name', 'birthdate', 'gender']),
    );
  });

  it('when a method other than GET or an unknown type is asked, then 405 or 404 OperationOutcomes', async () => {
    const post = await t.request('POST', `${BASE}/Patient`, { headers: { 'x-api-key': clinic.apiKey } });
    expect(post.status).toBe(405);
    expectValidFhir(post.body);
    const unknown = await fhir('/Observation');
    expect(unknown.status).toBe(404);
    expectValidFhir(unknown.body);
  });

  it('when patients are searched and read, then the audit trail names each patient read, and the request log keeps the route without the query', async () => {
    await fhir(`/Patient?name=Edsger`);
    const reads = (await auditRows(t.ctx)).filter((row) => row.action === 'read' && row.resource_id === patients[4]);
    expect(reads.length).toBeGreaterThan(0);
    await t.ctx.requestLog.flush();
    const logged = await t.ctx.db.selectFrom('request_log').selectAll().where('clinic_id', '=', clinic.clinicId).execute();
    expect(logged.map((row) => row.route)).toContain('/fhir/R4/Patient');
    expect(JSON.stringify(logged)).not.toContain('Edsger');
  });
});

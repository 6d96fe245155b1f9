import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapturedLogs } from '../helpers/captured-logs.js';
import { patientBody } from '../helpers/fixtures.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { expectValidFhir } from './fhir-validator.js';

/** The FHIR API under the partner API's obligations: rate limits and their headers, no PHI in the logs (issue 32, item 5). */
const LIMIT = 5;

describe.each(DIALECTS)('FHIR limits and logs on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  let patientId: string;
  const logs = new CapturedLogs();

  beforeAll(async () => {
    t = await TestApp.start({ dialect, env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) }, logStream: logs.stream });
    clinic = await t.createClinic();
    const res = await t
      .partner(clinic.apiKey)
      .post('/api/external/patient', patientBody(clinic.clinicId, { first_name: 'Zebulon', last_name: 'Quixote' }));
    patientId = res.body.data.patient_id;
  });
  afterAll(async () => t.close());

  it('when a key goes over its limit on FHIR searches and reads, then X-RateLimit headers count down and the excess is a 429 OperationOutcome with Retry-After; no PHI is logged', async () => {
    const answers = [];
    // The patient's creation used one request of the window.
    for (let i = 0; i < LIMIT; i++) {
      const url = i % 2 === 0 ? `/fhir/R4/Patient?name=Zebulon&birthdate=1980-12-09` : `/fhir/R4/Patient/${patientId}`;
      answers.push(await t.request('GET', url, { headers: { 'x-api-key': clinic.apiKey } }));
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 429]);
    expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual(['3', '2', '1', '0', '0']);
    const refused = answers[LIMIT - 1]!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expectValidFhir(refused.body);
    expect(refused.body.issue[0].code).toBe('throttled');
    expect(refused.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
    expect(logs.text).toContain('/fhir/R4/Patient');
    for (const phi of ['Zebulon', 'Quixote', '1980-12-09', 'grace@example.com']) expect(logs.text).not.toContain(phi);
  });
});

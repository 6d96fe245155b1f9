import { TEST_FORMULARY, type OrderSetup } from '../helpers/factories.js';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import type { ProcessDatabase } from '../helpers/process-database.js';
import { PRODUCTION_BEHIND_PROXY, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { call, createPartner, OPERATOR_TOKEN, type Answer } from '../instances/support.js';

/**
 * What the fault suite runs against: production server processes (behind the test, their TLS
 * proxy) on a database of the file's own, with a clinic ready to order, as a partner's would be.
 */

/**
 * A production server on `database`: the operator token of test/instances/support.ts (`call`), and a
 * rate limit no test reaches (the fault suite loads the server on purpose; rate limits are tested
 * elsewhere). `env` adds or overrides variables.
 */
export function startProductionServer(database: ProcessDatabase, env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServerProcess({
    ...PRODUCTION_BEHIND_PROXY,
    ADMIN_TOKEN: OPERATOR_TOKEN,
    ...database.env,
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...env,
  });
}

/** Throws with the answer unless it is a 200: a broken setup fails loudly. */
export function dataOf(answer: Answer, what: string): any {
  if (answer.status !== 200) throw new Error(`${what} failed with ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

/**
 * A clinic provisioned as the operator does (a key, the formulary's first medication), then its
 * practitioner and patient as the partner creates them: ready for `orderBody`.
 */
export async function createOrderingPartner(server: Pick<ServerProcess, 'baseUrl'>, clinicName?: string): Promise<OrderSetup> {
  const clinic = await createPartner(server, clinicName);
  return { clinic, ...(await prepareToOrder(server, clinic)) };
}

/**
 * What a clinic needs before its first order, on `server`: the formulary's first medication (as the
 * operator adds it), then a practitioner and a patient (as the partner creates them, with its key).
 */
export async function prepareToOrder(
  server: Pick<ServerProcess, 'baseUrl'>,
  clinic: { clinicId: string; apiKey: string },
): Promise<{ practitionerId: string; patientId: string }> {
  dataOf(
    await call(server, 'POST', `/api/admin/clinics/${clinic.clinicId}/medications`, {
      operator: true,
      body: { name: TEST_FORMULARY[0] },
    }),
    'add medication',
  );
  return createPractitionerAndPatient(server, clinic);
}

/** A practitioner and a patient of the clinic, as the partner creates them with its key. */
export async function createPractitionerAndPatient(
  server: Pick<ServerProcess, 'baseUrl'>,
  { clinicId, apiKey }: { clinicId: string; apiKey: string },
): Promise<{ practitionerId: string; patientId: string }> {
  const practitionerId: string = dataOf(
    await call(server, 'POST', '/api/external/practitioner', { apiKey, body: practitionerBody(clinicId) }),
    'create practitioner',
  ).practitioner_id;
  const patientId: string = dataOf(
    await call(server, 'POST', '/api/external/patient', {
      apiKey,
      body: patientBody(clinicId, { practitioner_id: practitionerId }),
    }),
    'create patient',
  ).patient_id;
  return { practitionerId, patientId };
}

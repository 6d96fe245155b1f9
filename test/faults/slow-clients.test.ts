import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderBody, type OrderSetup } from '../helpers/factories.js';
import { patientBody } from '../helpers/fixtures.js';
import { within } from '../helpers/raw-connection.js';
import { FORWARDED_HTTPS, killServerProcesses, type ServerProcess } from '../helpers/server-process.js';
import {
  expectRequestTimeoutAnswer,
  silentClient,
  slowBodyClient,
  slowHeaderClient,
  type SlowClient,
} from '../helpers/slow-clients.js';
import { freshProcessDatabase, type ProcessDatabase } from '../helpers/process-database.js';
import { DIALECTS } from '../helpers/test-db.js';
import { call } from '../instances/support.js';
import { createOrderingPartner, startProductionServer } from './partner-server.js';

/**
 * Slow clients during normal traffic (issue 9, item 8): several slow-header, slow-body and silent
 * clients at once, while partners create and read patients and orders on a production server
 * process. Normal requests all succeed; each slow client is cut off on time: never before its
 * timeout (measured from its first byte; a silent client from its connection), and at most
 * LATE_MS after it.
 */
const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
/** How much earlier than its timeout a client may see its cut-off: the clocks of two processes, and timer granularity. */
const EARLY_MS = 50;
/** How long after its timeout a client may still be connected: Node checks the timeouts on an interval (server-timeouts.ts), and CI machines are loaded. */
const LATE_MS = 5000;
const SLOW_CLIENTS_OF_EACH_KIND = 5;
const SILENT_CLIENTS = 2;
const PARTNER_CLIENTS = 4;

for (const dialect of DIALECTS) {
  describe(`slow clients during partner traffic, on ${dialect}`, { timeout: 60_000 }, () => {
    let database: ProcessDatabase;
    let server: ServerProcess;
    let partner: OrderSetup;

    beforeAll(async () => {
      database = await freshProcessDatabase(dialect, 'slow-clients');
      server = await startProductionServer(database, {
        HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      });
      partner = await createOrderingPartner(server);
    }, 120_000);
    afterAll(async () => {
      await killServerProcesses();
      await database.drop();
    });

    /** A partner's work, again and again until `done` settles: a patient and an order, each created and read. The statuses. */
    async function partnerWorkUntil(done: Promise<unknown>): Promise<number[]> {
      const state = { finished: false };
      const settle = () => (state.finished = true);
      done.then(settle, settle);
      const { apiKey, clinicId } = partner.clinic;
      const statuses: number[] = [];
      const request = async (method: string, path: string, body?: unknown) => {
        const answer = await call(server, method, path, { apiKey, ...(body !== undefined ? { body } : {}) });
        statuses.push(answer.status);
        return answer.body.data;
      };
      while (!state.finished) {
        const patient = await request(
          'POST',
          '/api/external/patient',
          patientBody(clinicId, { practitioner_id: partner.practitionerId }),
        );
        await request('GET', `/api/external/patient/${patient?.patient_id as string}`);
        const order = await request(
          'POST',
          '/api/external/medication-order',
          orderBody(partner, { patient_id: patient?.patient_id }),
        );
        await request('GET', `/api/external/medication-order/${order?.medication_request_id as string}`);
      }
      return statuses;
    }

    it('when slow-header, slow-body and silent clients hold connections during partner traffic, then every partner request succeeds and each slow client gets 408 and is cut off on time', async () => {
      const clients = (count: number, start: () => Promise<SlowClient>) => Promise.all(Array.from({ length: count }, start));
      const cutOffsOf = (kind: SlowClient[]) => Promise.all(kind.map((client) => client.cutOff));
      const [slowHeaders, slowBodies, silent] = await Promise.all([
        clients(SLOW_CLIENTS_OF_EACH_KIND, () => slowHeaderClient(server.baseUrl)),
        clients(SLOW_CLIENTS_OF_EACH_KIND, () =>
          slowBodyClient(server.baseUrl, { headers: { 'x-api-key': partner.clinic.apiKey, ...FORWARDED_HTTPS } }),
        ),
        clients(SILENT_CLIENTS, () => silentClient(server.baseUrl)),
      ]);
      const allCutOff = within(
        Promise.all([cutOffsOf(slowHeaders), cutOffsOf(slowBodies), cutOffsOf(silent)]),
        REQUEST_TIMEOUT_MS + LATE_MS,
        'the cut-off of every slow client',
      );

      const statuses = (await Promise.all(Array.from({ length: PARTNER_CLIENTS }, () => partnerWorkUntil(allCutOff)))).flat();
      const [headerCutOffs, bodyCutOffs, silentCutOffs] = await allCutOff;

      expect(statuses.length).toBeGreaterThanOrEqual(4 * PARTNER_CLIENTS);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      // A silent client has not begun a request: the headers timeout runs from its connection.
      for (const [cutOffs, timeoutMs] of [
        [headerCutOffs, HEADERS_TIMEOUT_MS],
        [bodyCutOffs, REQUEST_TIMEOUT_MS],
        [silentCutOffs, HEADERS_TIMEOUT_MS],
      ] as const) {
        for (const cutOff of cutOffs) {
          expectRequestTimeoutAnswer(cutOff.received);
          expect(cutOff.afterMs).toBeGreaterThanOrEqual(timeoutMs - EARLY_MS);
          expect(cutOff.afterMs).toBeLessThanOrEqual(timeoutMs + LATE_MS);
        }
      }
    });
  });
}

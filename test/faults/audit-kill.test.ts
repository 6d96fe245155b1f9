import { afterAll, describe, expect, it } from 'vitest';
import type { DialectName } from '../../src/db/database.js';
import { freshProcessDatabase, inDatabase } from '../helpers/process-database.js';
import { killServerProcesses } from '../helpers/server-process.js';
import { DIALECTS } from '../helpers/test-db.js';
import { call } from '../instances/support.js';
import { createOrderingPartner, startProductionServer } from './partner-server.js';

afterAll(killServerProcesses);

const READS = 20;

/**
 * The audit trail holds every read that was answered (issue 19, item 6; HIPAA §164.312(b)): reads of
 * a patient are answered only once their audit rows are committed, so a server killed with SIGKILL
 * right after its answers has left every one of them in the trail. Before group commit, reads were
 * buffered and written "within a second", and a kill right after 20 answers left 0 to 12 of them.
 */
describe.each(DIALECTS)('kill -9 right after answered reads on %s', (dialect: DialectName) => {
  it(`when ${READS} reads of a patient are answered and the server is killed at once, then all ${READS} are in the audit trail`, async () => {
    const database = await freshProcessDatabase(dialect, `audit-kill-${dialect}`);
    try {
      const server = await startProductionServer(database, { RUN_WORKER: 'false' });
      const partner = await createOrderingPartner(server);
      const path = `/api/external/patient/${partner.patientId}`;
      // Several at once (they share batches) and one after another (each a batch of its own).
      const together = await Promise.all(
        Array.from({ length: READS / 2 }, () => call(server, 'GET', path, { apiKey: partner.clinic.apiKey })),
      );
      const oneByOne = [];
      for (let i = 0; i < READS / 2; i++) oneByOne.push(await call(server, 'GET', path, { apiKey: partner.clinic.apiKey }));
      const answered = [...together, ...oneByOne];
      expect(answered.map((answer) => answer.status)).toEqual(Array.from({ length: READS }, () => 200));
      expect(await server.stop('SIGKILL')).toBeNull();

      const requestIds = answered.map((answer) => answer.headers.get('x-request-id'));
      const rows = await inDatabase(database, (db) =>
        db
          .selectFrom('audit_events')
          .select(['request_id', 'action', 'resource_type'])
          .where('resource_id', '=', partner.patientId)
          .where('action', '=', 'read')
          .execute(),
      );
      expect(rows).toHaveLength(READS);
      expect(new Set(rows.map((row) => row.request_id))).toEqual(new Set(requestIds));
    } finally {
      await database.drop();
    }
  });
});

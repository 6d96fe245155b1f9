import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS } from '../helpers/test-db.js';
import {
  databaseUrlOf,
  FORWARDED_HTTPS,
  killServerProcesses,
  PRODUCTION_BEHIND_PROXY,
  startServerProcess,
} from '../helpers/server-process.js';

const OPERATOR_TOKEN = 'instances-test-operator-token-0123456789';

afterEach(killServerProcesses);

describe.skipIf(!DIALECTS.includes('postgres'))('instances sharing one PostgreSQL database', { timeout: 120_000 }, () => {
  it('when two instances start together on an empty database, then both start and serve the same data', async () => {
    const database = await createTestDatabase('postgres');
    try {
      // Production on plain HTTP behind a TLS-terminating "proxy" on this machine (see PRODUCTION_BEHIND_PROXY).
      const env = { ...PRODUCTION_BEHIND_PROXY, ADMIN_TOKEN: OPERATOR_TOKEN, DATABASE_URL: databaseUrlOf(database) };
      const [first, second] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
      const auth = { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json', ...FORWARDED_HTTPS };

      const created = await fetch(`${first.baseUrl}/api/admin/clinics`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ name: 'Shared Clinic' }),
      });
      expect(created.status).toBe(200);
      const { data } = (await created.json()) as { data: { clinic_id: string } };

      const read = await fetch(`${second.baseUrl}/api/admin/clinics/${data.clinic_id}`, { headers: auth });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { data: { name: string } }).data.name).toBe('Shared Clinic');

      for (const server of [first, second]) expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
      expect(await Promise.all([first.stop(), second.stop()])).toEqual([0, 0]);
    } finally {
      await database.drop();
    }
  });
});

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { killServerProcesses, sandboxCredentials, startServerProcess } from '../helpers/server-process.js';

/**
 * examples/client.mjs, run as the README tells a partner developer (`node examples/client.mjs`): the
 * typed client's package as `npm install` built it (clients/typescript/dist, its prepare script),
 * against the built server.
 */
const CLIENT = path.resolve(import.meta.dirname, '../../examples/client.mjs');
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

describe('examples/client.mjs', { timeout: 60_000 }, () => {
  afterAll(killServerProcesses);

  it('when it runs with BASE, KEY and CLINIC, then it creates a practitioner and a patient and shows the typed error', async () => {
    // Started here rather than in a hook: the test's own timeout covers a slow start.
    const server = await startServerProcess({ DATABASE_URL: 'sqlite::memory:' });
    const { clinicId, apiKey } = sandboxCredentials(server);
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLIENT], {
      env: { ...process.env, BASE: server.baseUrl, KEY: apiKey, CLINIC: clinicId },
    });
    expect(stderr).toBe('');
    expect(stdout).toMatch(
      new RegExp(
        `^practitioner_id: ${UUID}\\npatient_id: ${UUID}\\nrefused: 400 VALIDATION_ERROR: npi_number is not a known field; did you mean npi\\?\\n$`,
      ),
    );
  });
});

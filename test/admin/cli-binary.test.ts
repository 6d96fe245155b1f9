import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataKeyId } from '../../src/secrets/data-key.js';
import { CliDatabase, spawnCli, type CliResult } from '../helpers/admin-cli.js';
import { buildServer } from '../helpers/server-process.js';

/**
 * The built operator command line (dist/cli/admin.js, what `npm run admin` starts) as a child
 * process on a SQLite file: what cli.test.ts cannot see in process, the binary's wiring. Its exit
 * status and streams, the password piped to its standard input at the production cost, and the
 * development key file in its working folder. Every command's behaviour is cli.test.ts's.
 */
// A process start each, seconds on a loaded machine with the suite's other workers.
describe('operator command line (child process on a SQLite file)', { timeout: 60_000 }, () => {
  let database: CliDatabase;
  let cliPath: string;

  beforeAll(async () => {
    // The suite's one build of the server (what `npm run build` puts in dist/), shared by every file.
    cliPath = path.join(path.dirname(await buildServer()), 'cli', 'admin.js');
    database = await CliDatabase.open('sqlite');
  }, 120_000);
  afterAll(() => database.close());

  const cli = (args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> =>
    spawnCli(cliPath, args, { cwd: database.dir, env: database.env(env), ...(input === undefined ? {} : { input }) });

  it('when the binary runs, then it exits 0 with the help on stdout, 2 on bad usage and 1 on a refusal, the reason on stderr', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: npm run admin');
    expect(help.stdout).toContain('Commands:');
    const usage = await cli([]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Error: Give a command');
    expect(usage.stderr).toContain('Usage: npm run admin -- ');
    const dup = await cli(['add-carrier', '--name', 'FedEx']);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('Error (CONFLICT): Carrier "fedex" already exists');
    expect(dup.stdout).toBe('');
  });

  it('when create-staff reads the password from standard input, then the first admin can sign in with it', async () => {
    const password = 'first admin passphrase 2026';
    const created = await cli(
      ['create-staff', '--email', 'Chief@Pharmacy.example', '--name', 'Chief Pharmacist', '--role', 'admin', '--password-stdin'],
      {},
      `${password}\n`,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.json.staff).toMatchObject({ email: 'chief@pharmacy.example', name: 'Chief Pharmacist', role: 'admin' });
    expect(created.stdout).not.toContain(password);

    await database.withApp(async (app) => {
      const res = await app.inject({
        method: 'POST',
        url: '/api/admin/session',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ email: 'chief@pharmacy.example', password }),
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ staff_id: created.json.staff_id, role: 'admin' });
    });
  });

  it('when DATA_ENCRYPTION_KEY is unset in development, then the CLI creates data/encryption.key in its folder once and reuses it', async () => {
    const keyFile = database.keyFile;
    expect(existsSync(keyFile)).toBe(false);
    expect((await cli(['list-clinics'], { DATA_ENCRYPTION_KEY: '' })).code).toBe(0);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const created = readFileSync(keyFile, 'utf8');
    expect((await cli(['list-clinics'], { DATA_ENCRYPTION_KEY: '' })).code).toBe(0);
    expect(readFileSync(keyFile, 'utf8')).toBe(created);
    // A server started in the same folder uses the same key.
    const serverKeyId = await database.withApp(async (_app, runtime) => runtime.ctx.keyring.currentKeyId, {
      DATA_ENCRYPTION_KEY: '',
    });
    expect(serverKeyId).toBe(dataKeyId(Buffer.from(created.trim(), 'base64')));
  });
});

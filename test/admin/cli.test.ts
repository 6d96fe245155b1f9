import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { openRuntime, type Runtime } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { dataKeyId } from '../../src/secrets/data-key.js';
import { DEV_KEY_FILE } from '../../src/secrets/key-source.js';
import { OPERATOR_TOKEN, TEST_DATA_ENCRYPTION_KEY } from '../helpers/test-app.js';
import { buildServer } from '../helpers/server-process.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { insertTestPatient } from '../shipping/shipping-fixtures.js';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { orderBody } from '../helpers/factories.js';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';

const run = promisify(execFile);

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

/**
 * The operator command line as a real child process on a SQLite file (the command line is for a
 * database without a running server; the PostgreSQL path is the same code behind DATABASE_URL).
 */
// Each test runs the command line several times, a process start each: on a loaded machine with the
// suite's other workers, that is seconds a start.
describe('operator command line (child process on a SQLite file)', { timeout: 60_000 }, () => {
  let dir: string;
  let file: string;
  let cliPath: string;

  beforeAll(async () => {
    // The suite's one build of the server (what `npm run build` puts in dist/), shared by every file.
    cliPath = path.join(path.dirname(await buildServer()), 'cli', 'admin.js');
    dir = mkdtempSync(path.join(tmpdir(), 'admin-cli-'));
    file = path.join(dir, 'fulfillment.sqlite');
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    const {
      ADMIN_TOKEN: _token,
      FULFILLMENT_ENV: _env,
      DATA_ENCRYPTION_KEY: _key,
      DATA_ENCRYPTION_KEY_PREVIOUS: _previous,
      ...inherited
    } = process.env;
    try {
      const { stdout, stderr } = await run(process.execPath, [cliPath, ...args], {
        cwd: dir,
        env: { ...inherited, DATABASE_URL: file, DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY, ...env },
      });
      return { code: 0, stdout, stderr, json: stdout.startsWith('{') ? JSON.parse(stdout) : undefined };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr, json: undefined };
    }
  }

  /** A server of the given environment on the same database file. */
  async function withApp<T>(fn: (app: App, runtime: Runtime) => Promise<T>, env: Record<string, string> = {}): Promise<T> {
    const config = loadConfig({
      DATABASE_URL: file,
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY,
      LOG_LEVEL: 'silent',
      RUN_WORKER: 'false',
      ...env,
    });
    // The development key file, when a test leaves DATA_ENCRYPTION_KEY empty: where the CLI (started in `dir`) finds it.
    const runtime = await openRuntime(config, { keyFile: path.join(dir, DEV_KEY_FILE) });
    const app = await buildApp(runtime.ctx);
    try {
      return await fn(app, runtime);
    } finally {
      await app.close();
      await runtime.close();
    }
  }

  const carriers = (app: App, apiKey: string) =>
    app.inject({ method: 'GET', url: '/api/external/carriers', headers: { 'x-api-key': apiKey, accept: 'application/json' } });

  it('when a clinic and a key are created with the CLI, then the key works against a server on the same file', async () => {
    const clinic = await cli(['create-clinic', '--name', 'First Clinic']);
    expect(clinic.code).toBe(0);
    expect(clinic.json).toMatchObject({ name: 'First Clinic', free_shipping: false });
    const key = await cli(['issue-key', '--clinic', clinic.json.clinic_id]);
    expect(key.code).toBe(0);
    expect(key.json).toMatchObject({ clinic_id: clinic.json.clinic_id, environment: 'development' });
    expect(key.json.api_key).toMatch(/^dev_[A-Za-z0-9_-]{43}$/);

    await withApp(async (app) => {
      const res = await carriers(app, key.json.api_key);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.carriers.map((c: { id: string }) => c.id)).toEqual(['fedex', 'ups', 'usps']);
    });

    const keys = await cli(['list-keys', '--clinic', clinic.json.clinic_id]);
    expect(keys.json.api_keys).toEqual([expect.objectContaining({ api_key_id: key.json.api_key_id, revoked_at: null })]);
    expect(keys.stdout).not.toContain(key.json.api_key);
    const list = await cli(['list-clinics']);
    expect(list.json.clinics).toContainEqual(clinic.json);
  });

  it('when a key is revoked with the CLI, then the server refuses it on the next request', async () => {
    const clinic = await cli(['create-clinic', '--name', 'Revoking Clinic']);
    const key = await cli(['issue-key', '--clinic', clinic.json.clinic_id]);
    await withApp(async (app) => {
      expect((await carriers(app, key.json.api_key)).statusCode).toBe(200);
      const revoked = await cli(['revoke-key', '--key-id', key.json.api_key_id]);
      expect(revoked.code).toBe(0);
      expect(revoked.json).toEqual({ api_key_id: key.json.api_key_id, revoked_at: expect.any(String) });
      const res = await carriers(app, key.json.api_key);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.message).toMatch(/^Unauthorized/);
    });
  });

  it('when a restricted key is issued and rolled with the CLI, then the successor keeps its scopes, both work during the overlap, and a roll with 0 ends the old one at once', async () => {
    const clinic = await cli(['create-clinic', '--name', 'Rolling Clinic']);
    const key = await cli(['issue-key', '--clinic', clinic.json.clinic_id, '--scopes', 'orders:write, carriers:read']);
    expect(key.code).toBe(0);
    expect(key.json).toMatchObject({ scopes: ['orders:write', 'carriers:read'], expires_at: null, last_used_at: null });

    const rolled = await cli(['roll-key', '--key-id', key.json.api_key_id, '--expires-in', '1h']);
    expect(rolled.code).toBe(0);
    expect(rolled.json).toMatchObject({
      clinic_id: clinic.json.clinic_id,
      environment: 'development',
      scopes: ['orders:write', 'carriers:read'],
      previous_key: { api_key_id: key.json.api_key_id },
    });
    // One moment for both: the successor's creation and the start of the old key's hour.
    expect(Date.parse(rolled.json.previous_key.expires_at) - Date.parse(rolled.json.created_at)).toBe(3_600_000);
    expect(rolled.stdout).not.toContain(key.json.api_key);

    await withApp(async (app) => {
      for (const apiKey of [key.json.api_key, rolled.json.api_key]) expect((await carriers(app, apiKey)).statusCode).toBe(200);
      const outside = await app.inject({
        method: 'GET',
        url: '/api/external/medications',
        headers: { 'x-api-key': rolled.json.api_key, accept: 'application/json' },
      });
      expect(outside.statusCode).toBe(403);
      expect(outside.json().error.message).toBe('Forbidden: this API key lacks the scope formulary:read');

      const ended = await cli(['roll-key', '--key-id', rolled.json.api_key_id, '--expires-in', '0']);
      expect(ended.code).toBe(0);
      const refused = await carriers(app, rolled.json.api_key);
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.message).toBe('Unauthorized: API key has expired');
      expect((await carriers(app, ended.json.api_key)).statusCode).toBe(200);
    });

    const again = await cli(['roll-key', '--key-id', rolled.json.api_key_id, '--expires-in', '30m']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Error (CONFLICT): API key has expired: it cannot be rolled');
    const keys = await cli(['list-keys', '--clinic', clinic.json.clinic_id]);
    expect(keys.json.api_keys.map((k: { scopes: string[] }) => k.scopes)).toEqual([
      ['orders:write', 'carriers:read'],
      ['orders:write', 'carriers:read'],
      ['orders:write', 'carriers:read'],
    ]);
  });

  it('when a production key is issued with the CLI, then a development server refuses it and a production server accepts it', async () => {
    const clinic = await cli(['create-clinic', '--name', 'Production Clinic']);
    const key = await cli(['issue-key', '--clinic', clinic.json.clinic_id, '--environment', 'production']);
    expect(key.json.api_key).toMatch(/^prod_/);
    await withApp(async (app) => {
      expect((await carriers(app, key.json.api_key)).statusCode).toBe(401);
    });
    await withApp(
      async (app) => {
        expect((await carriers(app, key.json.api_key)).statusCode).toBe(200);
      },
      { FULFILLMENT_ENV: 'production' },
    );
  });

  it('when FULFILLMENT_ENV is production and ADMIN_TOKEN is unset, then the CLI still runs and issues production keys', async () => {
    const clinic = await cli(['create-clinic', '--name', 'Prod Default Clinic'], { FULFILLMENT_ENV: 'production' });
    expect(clinic.code).toBe(0);
    const key = await cli(['issue-key', '--clinic', clinic.json.clinic_id], { FULFILLMENT_ENV: 'production' });
    expect(key.json.environment).toBe('production');
  });

  it('when formulary, free shipping, a carrier and a priced service are added with the CLI, then the server prices with them', async () => {
    const clinic = await cli(['create-clinic', '--name', 'Catalogue Clinic']);
    const clinicId = clinic.json.clinic_id as string;
    const medication = await cli([
      'add-medication',
      '--clinic',
      clinicId,
      '--name',
      'Semaglutide',
      '--strength',
      '2.5 mg/mL',
      '--dosage-form',
      'injectable solution',
    ]);
    expect(medication.json).toMatchObject({
      medication_id: expect.any(String),
      name: 'Semaglutide',
      strength: '2.5 mg/mL',
      dosage_form: 'injectable solution',
    });
    const carrier = await cli(['add-carrier', '--name', 'Ameriship']);
    expect(carrier.json).toMatchObject({ id: 'ameriship', name: 'Ameriship', services: [] });
    const service = await cli([
      'add-service',
      '--carrier',
      'ameriship',
      '--name',
      'Ameriship Ground',
      '--price',
      '19.99',
      '--state-price',
      'CA=12.50',
      '--state-price',
      'ny=24.05',
    ]);
    expect(service.json).toMatchObject({ id: 'ameriship_ground', price: 19.99, state_prices: { CA: 12.5, NY: 24.05 } });
    const free = await cli(['set-free-shipping', '--clinic', clinicId, '--enabled', 'true']);
    expect(free.json).toMatchObject({ clinic_id: clinicId, free_shipping: true });
    const key = await cli(['issue-key', '--clinic', clinicId]);

    await withApp(async (app, runtime) => {
      const patientId = await insertTestPatient(runtime.ctx, clinicId, 'CA');
      const res = await app.inject({
        method: 'GET',
        url: `/api/external/carriers/ameriship/services?patientId=${patientId}`,
        headers: { 'x-api-key': key.json.api_key },
      });
      expect(res.json()).toEqual({
        success: true,
        data: [{ id: 'ameriship_ground', name: 'Ameriship Ground', totalCost: 0, originalCost: 12.5 }],
        isFreeShipment: true,
        freeShipmentType: 'clinic_specific',
        patientState: 'California',
      });
    });
  });

  it('when the service refuses (duplicate, unknown clinic, bad state), then exit 1 with the reason on stderr', async () => {
    const dup = await cli(['add-carrier', '--name', 'FedEx']);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('Error (CONFLICT): Carrier "fedex" already exists');
    const unknown = await cli(['issue-key', '--clinic', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Clinic not found');
    const state = await cli(['add-service', '--carrier', 'ups', '--name', 'UPS Saver', '--price', '10', '--state-price', 'ZZ=1']);
    expect(state.code).toBe(1);
    expect(state.stderr).toContain('state_prices.ZZ');
  });

  it('when the key changes and rotate-encryption-key runs, then every secret moves to the new key once, and deliveries still verify', async () => {
    const clinic = await cli(['create-clinic', '--name', 'Rotating Clinic']);
    const key = await cli(['issue-key', '--clinic', clinic.json.clinic_id]);
    const receiver = await WebhookReceiver.start();
    try {
      const partner = { 'x-api-key': key.json.api_key, 'content-type': 'application/json', accept: 'application/json' };
      const registered = await withApp(async (app) =>
        Promise.all(
          ['/a', '/b'].map(async (hook) => {
            const res = await app.inject({
              method: 'POST',
              url: '/api/external/webhook',
              headers: partner,
              payload: { clinic_id: clinic.json.clinic_id, webhook_url: receiver.url(hook) },
            });
            return res.json().data as { webhook_id: string; secret: string };
          }),
        ),
      );
      const newKey = randomBytes(32).toString('base64');

      // The new key alone cannot read the old secrets: the command refuses, changes nothing, and says why.
      const refused = await cli(['rotate-encryption-key'], { DATA_ENCRYPTION_KEY: newKey });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('2 secret(s) could not be decrypted');
      expect(refused.stderr).toContain('DATA_ENCRYPTION_KEY_PREVIOUS');

      const rotated = await cli(['rotate-encryption-key'], {
        DATA_ENCRYPTION_KEY: newKey,
        DATA_ENCRYPTION_KEY_PREVIOUS: TEST_DATA_ENCRYPTION_KEY,
      });
      expect(rotated.code).toBe(0);
      const newKeyId = dataKeyId(Buffer.from(newKey, 'base64'));
      expect(rotated.json).toEqual({ current_key_id: newKeyId, reencrypted: 2, unreadable: [], totp_reencrypted: 0 });
      const again = await cli(['rotate-encryption-key'], {
        DATA_ENCRYPTION_KEY: newKey,
        DATA_ENCRYPTION_KEY_PREVIOUS: TEST_DATA_ENCRYPTION_KEY,
      });
      expect(again.json).toEqual({ current_key_id: newKeyId, reencrypted: 0, unreadable: [], totp_reencrypted: 0 });

      // The old key dropped: the secrets are read with the new one and sign as before.
      await withApp(
        async (app, runtime) => {
          const rows = await runtime.ctx.db.selectFrom('webhook_endpoints').select(['secret', 'secret_key_id']).execute();
          expect(rows.map((r) => r.secret_key_id)).toEqual([newKeyId, newKeyId]);
          for (const { webhook_id, secret } of registered) {
            expect(rows.some((r) => r.secret.includes(secret.slice(6)))).toBe(false);
            const res = await app.inject({
              method: 'POST',
              url: '/api/external/webhook/test',
              headers: partner,
              payload: { clinic_id: clinic.json.clinic_id, webhook_id },
            });
            expect(res.json().data.delivered).toBe(true);
            expect(WebhookReceiver.verify(secret, receiver.received.at(-1)!).type).toBe('webhook.test');
          }
        },
        { DATA_ENCRYPTION_KEY: newKey },
      );
    } finally {
      await receiver.stop();
    }
  });

  it('when DATA_ENCRYPTION_KEY is unset in development, then the CLI creates data/encryption.key in its folder once and reuses it', async () => {
    const keyFile = path.join(dir, DEV_KEY_FILE);
    expect(existsSync(keyFile)).toBe(false);
    expect((await cli(['list-clinics'], { DATA_ENCRYPTION_KEY: '' })).code).toBe(0);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const created = readFileSync(keyFile, 'utf8');
    expect((await cli(['list-clinics'], { DATA_ENCRYPTION_KEY: '' })).code).toBe(0);
    expect(readFileSync(keyFile, 'utf8')).toBe(created);
    // A server started in the same folder uses the same key.
    const serverKeyId = await withApp(async (_app, runtime) => runtime.ctx.keyring.currentKeyId, { DATA_ENCRYPTION_KEY: '' });
    expect(serverKeyId).toBe(dataKeyId(Buffer.from(created.trim(), 'base64')));
  });

  it.each([
    [['help'], 0, 'Usage: npm run admin'],
    [['--help'], 0, 'Usage: npm run admin'],
    [[], 2, 'Error: Give a command'],
    [['launch-rockets'], 2, 'Unknown command "launch-rockets"'],
    [['create-clinic'], 2, 'create-clinic needs --name'],
    [['create-clinic', '--name', '  '], 2, '--name must not be blank'],
    [['create-clinic', '--name', 'North\u202eside'], 2, '--name must not contain bidirectional control characters'],
    [['create-clinic', '--name', '1234'], 2, '--name must contain at least one letter'],
    [['add-carrier', '--name', 'Fast\u200b'], 2, '--name must not contain zero-width characters'],
    [['issue-key', '--clinic', 'abc'], 2, '--clinic must be a UUID'],
    [
      ['issue-key', '--clinic', '00000000-0000-4000-8000-000000000000', '--environment', 'staging'],
      2,
      '--environment must be development or production',
    ],
    [
      ['set-free-shipping', '--clinic', '00000000-0000-4000-8000-000000000000', '--enabled', 'yes'],
      2,
      '--enabled must be true or false',
    ],
    [
      ['add-service', '--carrier', 'ups', '--name', 'X', '--price', '1.234'],
      2,
      '--price must be US dollars with at most two decimals',
    ],
    [
      ['add-service', '--carrier', 'ups', '--name', 'X', '--price', '1', '--state-price', 'CA:1'],
      2,
      '--state-price must look like CA=12.50',
    ],
    [['list-clinics', '--name', 'x'], 2, 'list-clinics does not take --name'],
    [['list-clinics', '--bogus'], 2, 'Error: Unknown flag --bogus\nUsage: npm run admin -- list-clinics\n'],
    [['launch-rockets', '--now'], 2, 'Unknown command "launch-rockets"'],
    [
      ['add-medication', '--clinic'],
      2,
      'Error: --clinic needs a value\nUsage: npm run admin -- add-medication --clinic <clinic id>',
    ],
    [['add-medication', '--name', '--clinic', 'x'], 2, '--name needs a value'],
    [['create-clinic', '--name', 'A', '--free-shipping=yes'], 2, '--free-shipping takes no value'],
    [
      ['remove-medication', '--clinic', '00000000-0000-4000-8000-000000000000', '--medication', 'x'],
      2,
      '--medication must be a UUID',
    ],
    [
      ['move-order', '--order', '00000000-0000-4000-8000-000000000000', '--status', 'pending'],
      2,
      '--status must be processing, shipped, delivered or cancelled, got "pending"',
    ],
    [
      ['update-service', '--carrier', 'ups', '--service', 'ups_ground', '--clear-state-prices', '--state-price', 'CA=1'],
      2,
      'not both',
    ],
    [['retry-delivery'], 2, 'retry-delivery needs --delivery'],
    [['roll-key', '--key-id', '00000000-0000-4000-8000-000000000000'], 2, 'roll-key needs --expires-in'],
    [
      ['roll-key', '--key-id', '00000000-0000-4000-8000-000000000000', '--expires-in', '8d'],
      2,
      '--expires-in must be at most 7d (the old key works at most 7 days more), got "8d"',
    ],
    [
      ['roll-key', '--key-id', '00000000-0000-4000-8000-000000000000', '--expires-in', '1w'],
      2,
      '--expires-in must be a duration such as 30m, 1h or 7d, got "1w"',
    ],
    [
      ['roll-key', '--key-id', '00000000-0000-4000-8000-000000000000', '--expires-in', '1.5h'],
      2,
      '--expires-in must be a duration such as 30m, 1h or 7d, got "1.5h"',
    ],
    [
      ['issue-key', '--clinic', '00000000-0000-4000-8000-000000000000', '--scopes', 'orders:write,orders:delete'],
      2,
      '--scopes: unknown scope "orders:delete"; known: practitioners:read',
    ],
    [
      ['issue-key', '--clinic', '00000000-0000-4000-8000-000000000000', '--scopes', 'orders:write,'],
      2,
      '--scopes must list scopes separated by commas',
    ],
    [
      ['issue-key', '--clinic', '00000000-0000-4000-8000-000000000000', '--expires-in', '0'],
      2,
      '--expires-in must be at least 1s, got "0"',
    ],
    [
      ['revoke-key', '--key-id', '00000000-0000-4000-8000-000000000000', '--expires-in', '1h'],
      2,
      'revoke-key does not take --expires-in',
    ],
    [['list-clinics', 'extra'], 2, 'Unexpected argument "extra"'],
  ])('when the arguments are %j, then exit %i saying %j', async (args, code, text) => {
    const result = await cli(args);
    expect(result.code).toBe(code);
    expect(code === 0 ? result.stdout : result.stderr).toContain(text);
    // Bad usage is answered in our words and a short usage, not Node's parser messages or the whole help.
    if (code !== 0) {
      expect(result.stderr).toContain('Usage: npm run admin -- ');
      expect(result.stderr).not.toContain('Commands:');
      expect(result.stderr).not.toContain('positional argument');
    }
  });

  it('when the formulary is listed and a medication removed with the CLI, then the list no longer has it', async () => {
    const clinicId = (await cli(['create-clinic', '--name', 'Formulary Clinic'])).json.clinic_id as string;
    const kept = await cli(['add-medication', '--clinic', clinicId, '--name', 'Semaglutide']);
    const removed = await cli(['add-medication', '--clinic', clinicId, '--name', 'Gabapentin']);
    const before = await cli(['list-medications', '--clinic', clinicId]);
    expect(before.json.medications.map((m: { name: string }) => m.name).sort()).toEqual(['Gabapentin', 'Semaglutide']);

    const removal = await cli(['remove-medication', '--clinic', clinicId, '--medication', removed.json.medication_id]);
    expect(removal.code).toBe(0);
    expect(removal.json).toEqual({ medication_id: removed.json.medication_id });
    const after = await cli(['list-medications', '--clinic', clinicId]);
    expect(after.json.medications).toEqual([kept.json]);

    const again = await cli(['remove-medication', '--clinic', clinicId, '--medication', removed.json.medication_id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Medication not found');
    const otherClinic = await cli([
      'remove-medication',
      '--clinic',
      '00000000-0000-4000-8000-000000000000',
      '--medication',
      kept.json.medication_id,
    ]);
    expect(otherClinic.stderr).toContain('Clinic not found');
  });

  it("when a service's prices are updated with the CLI, then list-carriers and the server's prices show them", async () => {
    const carrier = await cli(['add-carrier', '--name', 'Pricecheck Post']);
    await cli(['add-service', '--carrier', carrier.json.id, '--name', 'Standard', '--price', '10', '--state-price', 'CA=8']);
    const updated = await cli([
      'update-service',
      '--carrier',
      carrier.json.id,
      '--service',
      'standard',
      '--price',
      '11.25',
      '--state-price',
      'NY=14.75',
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.json).toMatchObject({ id: 'standard', price: 11.25, state_prices: { NY: 14.75 } });
    const listed = await cli(['list-carriers']);
    const service = listed.json.carriers.find((c: { id: string }) => c.id === carrier.json.id).services[0];
    expect(service).toMatchObject({ id: 'standard', price: 11.25, state_prices: { NY: 14.75 } });

    const cleared = await cli(['update-service', '--carrier', carrier.json.id, '--service', 'standard', '--clear-state-prices']);
    expect(cleared.json.state_prices).toEqual({});
    const clinicId = (await cli(['create-clinic', '--name', 'Pricecheck Clinic'])).json.clinic_id as string;
    const key = (await cli(['issue-key', '--clinic', clinicId])).json.api_key as string;
    await withApp(async (app, runtime) => {
      const patientId = await insertTestPatient(runtime.ctx, clinicId, 'NY');
      const res = await app.inject({
        method: 'GET',
        url: `/api/external/carriers/${carrier.json.id as string}/services?patientId=${patientId}`,
        headers: { 'x-api-key': key },
      });
      expect(res.json().data).toEqual([expect.objectContaining({ id: 'standard', totalCost: 11.25 })]);
    });
    const unknown = await cli(['update-service', '--carrier', carrier.json.id, '--service', 'express', '--price', '1']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Service not found');
  });

  it('when an order is moved and its deliveries retried and recovered with the CLI, then the order and the delivery log change as through the operator API', async () => {
    const clinicId = (await cli(['create-clinic', '--name', 'Moving Clinic'])).json.clinic_id as string;
    await cli(['add-medication', '--clinic', clinicId, '--name', 'Semaglutide']);
    const apiKey = (await cli(['issue-key', '--clinic', clinicId])).json.api_key as string;
    const receiver = await WebhookReceiver.start();
    try {
      const partner = (url: string, payload: object) =>
        withApp(async (app) => {
          const res = await app.inject({
            method: 'POST',
            url,
            headers: { 'x-api-key': apiKey, 'content-type': 'application/json', accept: 'application/json' },
            payload,
          });
          if (res.statusCode !== 200) throw new Error(`${url}: ${res.body}`);
          return res.json().data;
        });
      const webhookId = (await partner('/api/external/webhook', { clinic_id: clinicId, webhook_url: receiver.url() }))
        .webhook_id as string;
      const practitionerId = (await partner('/api/external/practitioner', practitionerBody(clinicId))).practitioner_id as string;
      const patientId = (await partner('/api/external/patient', patientBody(clinicId, { practitioner_id: practitionerId })))
        .patient_id as string;
      const orderId = (
        await partner('/api/external/medication-order', orderBody({ clinic: { clinicId }, practitionerId, patientId }))
      ).medication_request_id as string;

      const processing = await cli(['move-order', '--order', orderId, '--status', 'processing']);
      expect(processing.code, processing.stderr).toBe(0);
      expect(processing.json).toMatchObject({ medication_request_id: orderId, status: 'processing' });
      const untracked = await cli(['move-order', '--order', orderId, '--status', 'shipped']);
      expect(untracked.code).toBe(1);
      expect(untracked.stderr).toContain('tracking_number');
      const shipped = await cli(['move-order', '--order', orderId, '--status', 'shipped', '--tracking-number', '123456789012']);
      expect(shipped.json).toMatchObject({ status: 'shipped', tracking_number: '123456789012' });
      const backwards = await cli(['move-order', '--order', orderId, '--status', 'processing']);
      expect(backwards.code).toBe(1);
      expect(backwards.stderr).toContain('Error (');

      // The worker delivers the order's events; one is then sent again, and the endpoint recovered.
      const deliveries = await withApp(async (app, runtime) => {
        const worker = new WebhookWorker(runtime.ctx, { logger: app.log });
        try {
          await worker.drain();
        } finally {
          await worker.stop();
        }
        const res = await app.inject({
          method: 'GET',
          url: `/api/admin/webhook-deliveries?clinic_id=${clinicId}`,
          headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
        });
        return res.json().data.items as { delivery_id: string; event_type: string; status: string }[];
      });
      const created = deliveries.find((d) => d.event_type === 'order.created');
      expect(created?.status).toBe('delivered');
      const retried = await cli(['retry-delivery', '--delivery', created!.delivery_id]);
      expect(retried.code, retried.stderr).toBe(0);
      expect(retried.json).toMatchObject({ delivery_id: created!.delivery_id, status: 'pending' });
      const recovered = await cli(['recover-endpoint', '--webhook', webhookId]);
      expect(recovered.code, recovered.stderr).toBe(0);
      expect(recovered.json).toEqual(expect.objectContaining({ scheduled: expect.any(Number) }));
      const tooOld = await cli(['recover-endpoint', '--webhook', webhookId, '--since', '2000-01-01T00:00:00Z']);
      expect(tooOld.code).toBe(1);
      expect(tooOld.stderr).toContain('since');
      const unknown = await cli(['retry-delivery', '--delivery', '00000000-0000-4000-8000-000000000000']);
      expect(unknown.stderr).toContain('Webhook delivery not found');
    } finally {
      await receiver.stop();
    }
  });

  /** The CLI with `input` on its standard input (a pipe, not a terminal). */
  function cliWithInput(args: string[], input: string): Promise<CliResult> {
    const { ADMIN_TOKEN: _token, FULFILLMENT_ENV: _env, DATA_ENCRYPTION_KEY: _key, ...inherited } = process.env;
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: dir,
      env: { ...inherited, DATABASE_URL: file, DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.end(input);
    return new Promise((resolve) =>
      child.once('close', (code) =>
        resolve({ code: code ?? -1, stdout, stderr, json: stdout.startsWith('{') ? JSON.parse(stdout) : undefined }),
      ),
    );
  }

  it('when create-staff reads the password from standard input, then the first admin can sign in with it', async () => {
    const password = 'first admin passphrase 2026';
    const created = await cliWithInput(
      ['create-staff', '--email', 'Chief@Pharmacy.example', '--name', 'Chief Pharmacist', '--role', 'admin', '--password-stdin'],
      `${password}\n`,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.json.staff).toMatchObject({ email: 'chief@pharmacy.example', name: 'Chief Pharmacist', role: 'admin' });
    expect(created.stdout).not.toContain(password);

    await withApp(async (app) => {
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

  it.each([
    ['a password under 12 characters', ['--role', 'admin', '--password-stdin'], 'short\n', /at least 12 characters/],
    [
      'an unknown role',
      ['--role', 'owner', '--password-stdin'],
      'long enough passphrase\n',
      /--role must be admin or pharmacist/,
    ],
    ['no --password-stdin and no terminal', ['--role', 'admin'], 'long enough passphrase\n', /--password-stdin/],
  ])('when create-staff gets %s, then exit 2 and no account', async (_what, flags, input, message) => {
    const res = await cliWithInput(['create-staff', '--email', 'nobody@pharmacy.example', '--name', 'Nobody', ...flags], input);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    await withApp(async (app) => {
      const list = await app.inject({
        method: 'GET',
        url: '/api/admin/staff',
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      });
      expect(JSON.stringify(list.json())).not.toContain('nobody@pharmacy.example');
    });
  });

  it('when invite-partner-user makes an account, then its link sets the password once and the person signs in to the portal', async () => {
    const clinic = await cli(['create-clinic', '--name', 'Invited Clinic', '--operator', 'Dana Ops']);
    const clinicId: string = clinic.json.clinic_id;
    const invited = await cli(
      ['invite-partner-user', '--clinic', clinicId, '--email', 'Dev@Invited.example', '--role', 'developer'],
      {
        PORT: '4321',
      },
    );
    expect(invited.code, invited.stderr).toBe(0);
    expect(invited.json.partner_user).toMatchObject({ email: 'dev@invited.example', role: 'developer', status: 'invited' });
    const url = new URL(invited.json.invitation_url as string);
    // The address the server's start banner prints for the same HOST and PORT, not localhost.
    expect(url.origin + url.pathname).toBe('http://127.0.0.1:4321/portal/invitation');
    const token = url.hash.slice(1);

    const wrongRole = await cli(['invite-partner-user', '--clinic', clinicId, '--email', 'x@invited.example', '--role', 'admin']);
    expect(wrongRole.code).toBe(2);
    expect(wrongRole.stderr).toMatch(/--role must be developer or viewer/);

    await withApp(async (app) => {
      const headers = { 'content-type': 'application/json', host: 'portal.test', origin: 'http://portal.test' };
      const accept = () =>
        app.inject({
          method: 'POST',
          url: '/api/portal/invitations/accept',
          headers,
          payload: JSON.stringify({ token, name: 'Dev Person', password: 'an invited developer passphrase' }),
        });
      expect((await accept()).statusCode).toBe(200);
      expect((await accept()).statusCode).toBe(404);
      const signIn = await app.inject({
        method: 'POST',
        url: '/api/portal/session',
        headers,
        payload: JSON.stringify({ email: 'dev@invited.example', password: 'an invited developer passphrase' }),
      });
      expect(signIn.statusCode).toBe(200);
      expect(signIn.json().data).toMatchObject({ clinic_id: clinicId, role: 'developer', clinic_name: 'Invited Clinic' });
    });

    const again = await cli(['reinvite-partner-user', '--email', 'dev@invited.example'], {
      PUBLIC_BASE_URL: 'https://portal.example.com',
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json.invitation_url).toMatch(/^https:\/\/portal\.example\.com\/portal\/invitation#/);
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { Runtime } from '../../src/bootstrap.js';
import { dataKeyId } from '../../src/secrets/data-key.js';
import { OPERATOR_TOKEN, TEST_DATA_ENCRYPTION_KEY } from '../helpers/test-app.js';
import { CliDatabase } from '../helpers/admin-cli.js';
import { DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { insertTestPatient } from '../shipping/shipping-fixtures.js';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { orderBody } from '../helpers/factories.js';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';

/**
 * The operator command line in process: `runAdminCommandLine`, what the built binary runs, with
 * captured output and exit status, on a database of each dialect that servers then open. The
 * binary's own wiring (its exit status, standard input, the key file of its working folder) is
 * cli-binary.test.ts's, as a child process.
 */
describe.each(DIALECTS)('operator command line (%s)', (dialect) => {
  let database: CliDatabase;

  beforeAll(async () => {
    database = await CliDatabase.open(dialect);
  });
  afterAll(() => database.close());

  const cli = (args: string[], env: Record<string, string> = {}, input?: string) => database.cli(args, env, input);
  const withApp = <T>(fn: (app: App, runtime: Runtime) => Promise<T>, env?: Record<string, string>) => database.withApp(fn, env);

  /**
   * Waits for the server's writes of its keys' last use, before a command changes the same rows
   * beside it: on SQLite both are connections of this one thread, and a write waiting on the
   * other's lock would hold the thread until its busy timeout.
   */
  const settled = (runtime: Runtime) => runtime.ctx.keyUsage.flush();

  const carriers = (app: App, apiKey: string) =>
    app.inject({ method: 'GET', url: '/api/external/carriers', headers: { 'x-api-key': apiKey, accept: 'application/json' } });

  it('when a clinic and a key are created with the CLI, then the key works against a server on the same database', async () => {
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
    await withApp(async (app, runtime) => {
      expect((await carriers(app, key.json.api_key)).statusCode).toBe(200);
      await settled(runtime);
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

    await withApp(async (app, runtime) => {
      for (const apiKey of [key.json.api_key, rolled.json.api_key]) expect((await carriers(app, apiKey)).statusCode).toBe(200);
      const outside = await app.inject({
        method: 'GET',
        url: '/api/external/medications',
        headers: { 'x-api-key': rolled.json.api_key, accept: 'application/json' },
      });
      expect(outside.statusCode).toBe(403);
      expect(outside.json().error.message).toBe('Forbidden: this API key lacks the scope formulary:read');

      await settled(runtime);
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
        data: [
          { id: 'ameriship_ground', name: 'Ameriship Ground', totalCost: 0, originalCost: 12.5, cold_chain_eligible: false },
        ],
        isFreeShipment: true,
        freeShipmentType: 'clinic_specific',
        patientState: 'California',
        licensed: true,
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

  it('when a formulary entry is added with --formula, then it has the formula; a formula the API would refuse is refused naming its field', async () => {
    const clinicId = (await cli(['create-clinic', '--name', 'Formula Clinic'])).json.clinic_id as string;
    const formula = {
      ingredients: [
        { name: 'gabapentin', strength: '50', unit: 'mg/mL', active: true },
        { name: 'oral suspending vehicle', strength: 'q.s.', unit: 'mL', active: false },
      ],
      preparation: 'non_sterile',
      bud_category: 'aqueous_preserved',
      storage: 'refrigerated',
    };
    const added = await cli([
      'add-medication',
      '--clinic',
      clinicId,
      '--name',
      'Gabapentin',
      '--formula',
      JSON.stringify(formula),
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.json).toMatchObject({ name: 'Gabapentin', ...formula, controlled_schedule: null, restricted_states: [] });

    const inactiveOnly = { ...formula, ingredients: [{ name: 'vehicle', strength: '1', unit: 'mL', active: false }] };
    const refused = await cli([
      'add-medication',
      '--clinic',
      clinicId,
      '--name',
      'Other',
      '--formula',
      JSON.stringify(inactiveOnly),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('ingredients');
    const badField = await cli(['add-medication', '--clinic', clinicId, '--name', 'Other', '--formula', '{"storage": "warm"}']);
    expect(badField.code).toBe(1);
    expect(badField.stderr).toContain('storage');
    const notJson = await cli(['add-medication', '--clinic', clinicId, '--name', 'Other', '--formula', '{storage']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('--formula must be a JSON object');
    const listed = await cli(['list-medications', '--clinic', clinicId]);
    expect(listed.json.medications.map((m: { name: string }) => m.name)).toEqual(['Gabapentin']);
  });

  // Twelve command-line processes, each starting Node and opening the database: more than the default 20 s under a loaded CI.
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
      const reasonless = await cli(['move-order', '--order', orderId, '--status', 'processing', '--reason', 'No stock']);
      expect(reasonless.code).toBe(1);
      expect(reasonless.stderr).toContain('reason');
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
  }, 60_000);

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

import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOrder, createOrderSetup, itemBody, orderBody, type OrderSetup } from '../helpers/factories.js';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import { TestApp, type Reply, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

const ORDERS = '/api/external/medication-order';
const UNKNOWN_ID = '0b5e7c9a-1d2f-4e3a-8b4c-5d6e7f809a1b';

describe.each(DIALECTS)('Idempotency-Key on partner POSTs on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  let keyNumber = 0;
  /** A fresh key per use, so that tests sharing the clinic never meet each other's keys. */
  const newKey = () => `key-${dialect}-${(keyNumber += 1)}`;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  /** A partner POST with the spec's headers, and the Idempotency-Key when given. */
  const post = (clinic: TestClinic, url: string, body: unknown, key?: string, payload?: string): Promise<Reply> =>
    t.request('POST', url, {
      headers: {
        'x-api-key': clinic.apiKey,
        accept: 'application/json',
        ...(body !== undefined || payload !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(key !== undefined ? { 'idempotency-key': key } : {}),
      },
      ...(payload !== undefined ? { payload } : { body }),
    });

  const count = async (table: 'medication_requests' | 'outbox_events' | 'idempotency_keys' | 'practitioners' | 'patients') =>
    Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('when an order is retried with its key and the same body, then the first status and body come back, marked as a replay, and nothing is created', async () => {
    const key = newKey();
    const first = await post(setup.clinic, ORDERS, orderBody(setup), key);
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const [orders, events] = [await count('medication_requests'), await count('outbox_events')];

    const retry = await post(setup.clinic, ORDERS, orderBody(setup), key);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    // The replay is a request of its own: its own id, and the first request's id beside it.
    expect(retry.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(retry.headers['idempotent-original-request-id']).toBe(first.headers['x-request-id']);
    expect(retry.headers['x-ratelimit-limit']).toBeDefined();
    expect([await count('medication_requests'), await count('outbox_events')]).toEqual([orders, events]);
  });

  it('when a response is stored for replay, then the database holds it encrypted (a webhook secret is never stored readable)', async () => {
    const key = newKey();
    const registered = await post(
      setup.clinic,
      '/api/external/webhook',
      { clinic_id: setup.clinic.clinicId, webhook_url: 'https://receiver.example.com/hooks' },
      key,
    );
    expect(registered.status).toBe(200);
    const secret: string = registered.body.data.secret;
    const stored = await t.ctx.db
      .selectFrom('idempotency_keys')
      .select(['response_body', 'response_key_id'])
      .where('idempotency_key', '=', key)
      .executeTakeFirstOrThrow();
    expect(stored.response_key_id).toBe(t.ctx.keyring.currentKeyId);
    expect(stored.response_body).not.toContain(secret);
    expect(stored.response_body).not.toContain(registered.body.data.webhook_id);

    const retry = await post(
      setup.clinic,
      '/api/external/webhook',
      { clinic_id: setup.clinic.clinicId, webhook_url: 'https://receiver.example.com/hooks' },
      key,
    );
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.data.secret).toBe(secret);
  });

  it('when the retry writes the same body with its keys in another order and other spacing, then it is the same request', async () => {
    const key = newKey();
    const body = orderBody(setup);
    const first = await post(setup.clinic, ORDERS, body, key);
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()), null, 2);
    const retry = await post(setup.clinic, ORDERS, undefined, key, reordered);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
  });

  it('when the key comes back with a different body, then 422 IDEMPOTENCY_KEY_REUSED names the header and nothing is created', async () => {
    const key = newKey();
    expect((await post(setup.clinic, ORDERS, orderBody(setup), key)).status).toBe(200);
    const orders = await count('medication_requests');

    const other = await post(setup.clinic, ORDERS, orderBody(setup, { medication_requests: [itemBody({ dose: '0.5mg' })] }), key);
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      success: false,
      error: {
        message: expect.stringMatching(/Idempotency-Key was already used with a different request/),
        code: 'IDEMPOTENCY_KEY_REUSED',
        details: { 'Idempotency-Key': expect.any(String) },
        request_id: other.headers['x-request-id'],
      },
    });
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await count('medication_requests')).toBe(orders);
  });

  it('when no Idempotency-Key is sent, then every request runs as before and no key is stored', async () => {
    const [orders, keys] = [await count('medication_requests'), await count('idempotency_keys')];
    const first = await post(setup.clinic, ORDERS, orderBody(setup));
    const second = await post(setup.clinic, ORDERS, orderBody(setup));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.data.medication_request_id).not.toBe(first.body.data.medication_request_id);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect([await count('medication_requests'), await count('idempotency_keys')]).toEqual([orders + 2, keys]);
  });

  it('when another clinic sends the same key, then its request runs on its own', async () => {
    const key = newKey();
    const other = await createOrderSetup(t);
    const mine = await post(setup.clinic, ORDERS, orderBody(setup), key);
    const theirs = await post(other.clinic, ORDERS, orderBody(other), key);
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data.medication_request_id).not.toBe(mine.body.data.medication_request_id);
  });

  it('when the same key is used on another route, then each route runs its own request', async () => {
    const key = newKey();
    const clinic = await t.createClinic();
    const practitioner = await post(clinic, '/api/external/practitioner', practitionerBody(clinic.clinicId), key);
    const patient = await post(
      clinic,
      '/api/external/patient',
      patientBody(clinic.clinicId, { practitioner_id: practitioner.body.data.practitioner_id }),
      key,
    );
    expect([practitioner.status, patient.status]).toEqual([200, 200]);
    expect(patient.headers['idempotent-replayed']).toBeUndefined();
    expect(patient.body.data.patient_id).toEqual(expect.any(String));
  });

  it('when one key cancels two different orders, then the second is 422: the path is part of the request', async () => {
    const key = newKey();
    const [a, b] = [await createOrder(t, setup), await createOrder(t, setup)];
    const first = await post(setup.clinic, `${ORDERS}/${a}/cancel`, undefined, key);
    expect(first.status).toBe(200);
    const second = await post(setup.clinic, `${ORDERS}/${b}/cancel`, undefined, key);
    expect(second.status).toBe(422);
    expect(second.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await t.partner(setup.clinic.apiKey).get(`${ORDERS}/${b}`)).body.data.status).toBe('pending');
    // The first cancellation, retried, is answered again rather than refused as already cancelled.
    const retry = await post(setup.clinic, `${ORDERS}/${a}/cancel`, undefined, key);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it.each([
    ['empty', '', 'must not be empty'],
    ['only spaces', '   ', 'must not be empty'],
    ['256 characters', 'k'.repeat(256), 'must be at most 255 characters'],
    ['not ASCII', 'clé-1', 'must contain only printable ASCII characters (space to ~)'],
    ['a control character', 'key\u0001', 'must contain only printable ASCII characters (space to ~)'],
  ])('when the key is %s, then 400 VALIDATION_ERROR names Idempotency-Key and nothing runs', async (_what, key, problem) => {
    const orders = await count('medication_requests');
    const res = await post(setup.clinic, ORDERS, orderBody(setup), key);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: `Validation failed: Idempotency-Key ${problem}`,
      details: { 'Idempotency-Key': problem },
    });
    expect(await count('medication_requests')).toBe(orders);
  });

  it('when the key has 255 printable characters with inner spaces, then it is accepted, and spaces around it are not part of it', async () => {
    const key = `${newKey()} ~!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}`.padEnd(255, 'x');
    expect(key).toHaveLength(255);
    const first = await post(setup.clinic, ORDERS, orderBody(setup), key);
    expect(first.status).toBe(200);
    const retry = await post(setup.clinic, ORDERS, orderBody(setup), `  ${key}  `);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('when the key is bad and the body too, then the key is reported first', async () => {
    const res = await post(setup.clinic, ORDERS, { nonsense: true }, '');
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details)).toEqual(['Idempotency-Key']);
  });

  it('when the body fails validation, then nothing is stored: the corrected body with the same key runs', async () => {
    const key = newKey();
    const invalid = await post(setup.clinic, ORDERS, orderBody(setup, { carrier_id: 42 }), key);
    expect(invalid.status).toBe(400);
    const valid = await post(setup.clinic, ORDERS, orderBody(setup), key);
    expect(valid.status).toBe(200);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
  });

  it('when the request is refused with 401, then nothing is stored and the key stays free', async () => {
    const key = newKey();
    const keys = await count('idempotency_keys');
    const refused = await post({ ...setup.clinic, apiKey: 'dev_not-a-key' }, ORDERS, orderBody(setup), key);
    expect(refused.status).toBe(401);
    expect(await count('idempotency_keys')).toBe(keys);
    const accepted = await post(setup.clinic, ORDERS, orderBody(setup), key);
    expect(accepted.status).toBe(200);
    expect(accepted.headers['idempotent-replayed']).toBeUndefined();
  });

  it('when the handler answers a 4xx, then that answer is stored and replayed', async () => {
    const key = newKey();
    const body = orderBody(setup, { patient_id: UNKNOWN_ID });
    const first = await post(setup.clinic, ORDERS, body, key);
    expect(first.status).toBe(404);
    const retry = await post(setup.clinic, ORDERS, body, key);
    expect(retry.status).toBe(404);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    // Byte for byte the first answer, so its request_id is the first request's, as the header says.
    expect(retry.body).toEqual(first.body);
    expect(retry.body.error.request_id).toBe(retry.headers['idempotent-original-request-id']);
  });

  describe('when the request fails with a 5xx', () => {
    const trigger = 'fail_orders_for_idempotency';
    afterEach(async () => {
      await sql
        .raw(
          dialect === 'sqlite' ? `drop trigger if exists ${trigger}` : `drop trigger if exists ${trigger} on medication_requests`,
        )
        .execute(t.ctx.db);
    });

    it('then nothing is stored: the key is free and a retry runs the request', async () => {
      const key = newKey();
      if (dialect === 'sqlite') {
        await sql
          .raw(`create trigger ${trigger} before insert on medication_requests begin select raise(abort, 'forced failure'); end`)
          .execute(t.ctx.db);
      } else {
        await sql
          .raw(
            `create or replace function forced_failure() returns trigger language plpgsql as $$ begin raise exception 'forced failure'; end $$`,
          )
          .execute(t.ctx.db);
        await sql
          .raw(`create trigger ${trigger} before insert on medication_requests for each row execute function forced_failure()`)
          .execute(t.ctx.db);
      }
      const orders = await count('medication_requests');
      const failed = await post(setup.clinic, ORDERS, orderBody(setup), key);
      expect(failed.status).toBe(500);
      const stored = await t.ctx.db.selectFrom('idempotency_keys').select('id').where('idempotency_key', '=', key).execute();
      expect(stored).toEqual([]);

      await sql
        .raw(dialect === 'sqlite' ? `drop trigger ${trigger}` : `drop trigger ${trigger} on medication_requests`)
        .execute(t.ctx.db);
      const retry = await post(setup.clinic, ORDERS, orderBody(setup), key);
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await count('medication_requests')).toBe(orders + 1);
    });
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_IDEMPOTENCY_LOCK_TIMEOUT_MS } from '../../src/config.js';
import { createOrderSetup, orderBody, type OrderSetup } from '../helpers/factories.js';
import { TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import { fakeClock } from '../webhooks/support.js';

/**
 * The window between a change's commit and the storing of its answer: a process that stops there
 * (here: the database refuses to store the answer, as a crash would leave it unstored) must not let a
 * retry carry the request out a second time, however long after.
 */
describe.each(DIALECTS)('an idempotent request whose answer was never stored, on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  const clock = fakeClock();

  beforeAll(async () => {
    t = await TestApp.start({ dialect, clock: clock.clock });
    setup = await createOrderSetup(t);
  });
  afterAll(async () => t.close());

  const order = (key: string): Promise<Reply> =>
    t.request('POST', '/api/external/medication-order', {
      headers: { 'x-api-key': setup.clinic.apiKey, 'content-type': 'application/json', 'idempotency-key': key },
      body: orderBody(setup),
    });
  const orders = async () =>
    Number(
      (
        await t.ctx.db
          .selectFrom('medication_requests')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** Makes the database refuse to store answers (state 'completed'), as a process stopping would. */
  async function refuseStoredAnswers(): Promise<() => Promise<void>> {
    if (dialect === 'postgres') {
      await sql`create function refuse_answer() returns trigger language plpgsql as $$ begin raise exception 'answer refused by the test'; end $$`.execute(
        t.ctx.db,
      );
      await sql`create trigger refuse_answer before update on idempotency_keys for each row when (new.state = 'completed') execute function refuse_answer()`.execute(
        t.ctx.db,
      );
      return async () => {
        await sql`drop function refuse_answer() cascade`.execute(t.ctx.db);
      };
    }
    await sql`create trigger refuse_answer before update on idempotency_keys when new.state = 'completed' begin select raise(abort, 'answer refused by the test'); end`.execute(
      t.ctx.db,
    );
    return async () => {
      await sql`drop trigger refuse_answer`.execute(t.ctx.db);
    };
  }

  it('when the change committed but its answer was not stored, then a retry past the lock timeout is refused with 409 and nothing is created again', async () => {
    const before = await orders();
    const restore = await refuseStoredAnswers();
    let first: Reply;
    try {
      first = await order('lost-answer');
    } finally {
      await restore();
    }
    // The partner still got its answer; the order exists once.
    expect(first.status).toBe(200);
    expect(await orders()).toBe(before + 1);
    const row = await t.ctx.db
      .selectFrom('idempotency_keys')
      .select(['state', 'response_body'])
      .where('idempotency_key', '=', 'lost-answer')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'executed', response_body: null });

    const early = await order('lost-answer');
    expect(early.status).toBe(409);

    clock.advance(DEFAULT_IDEMPOTENCY_LOCK_TIMEOUT_MS);
    const late = await order('lost-answer');
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('CONFLICT');
    expect(late.body.error.message).toMatch(/was carried out, but its answer was lost/);
    expect(await orders()).toBe(before + 1);
  });
});

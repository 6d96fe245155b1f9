import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createOrder, createOrderSetup, orderBody, type OrderSetup } from '../helpers/factories.js';
import { practitionerBody } from '../helpers/fixtures.js';
import { measureRequestCosts, type CostRequest } from '../helpers/request-costs.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * What the hot routes ask of the database per request (issue 19, item 3; docs/performance.md has
 * the counts before and after). Counts, never timings: each assertion fails when a count grows back.
 * Requests go one at a time, so each read's audit row is a batch of its own (under load, reads
 * arriving together share one INSERT).
 */
describe.each(DIALECTS)('what a request costs the database on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  let orderId: string;
  const postgres = dialect === 'postgres';

  beforeAll(async () => {
    t = await TestApp.start({ dialect, logStream: { write: () => undefined } });
    setup = await createOrderSetup(t);
    orderId = await createOrder(t, setup);
  });
  afterAll(async () => t.close());

  /**
   * The partner's request, with its key. PostgreSQL names each statement per pool connection: the
   * warm-up is long enough that every connection a request may reach (an order's parallel reads, the
   * audit buffer's timed flush beside it) has prepared its statements before counting. With ten, a
   * loaded CI machine once counted a first preparation in the window (0.1 per request).
   */
  const measure = (request: CostRequest) =>
    measureRequestCosts(
      t,
      { ...request, headers: { 'x-api-key': setup.clinic.apiKey, ...request.headers } },
      { requests: 20, warmup: 40 },
    );

  it('when carriers are listed, then the key and the carriers are read by queries compiled once, and nothing else', async () => {
    const costs = await measure({ method: 'GET', url: '/api/external/carriers' });
    expect(costs.queries).toBe(2);
    expect(costs.compiled).toBe(0);
    expect(costs.transactions).toBe(0);
    // Run straight on the driver (db/direct-statement.ts): no parse on PostgreSQL (named statements),
    // and no Kysely driver promises (about 27 a query; 60 a request before, 18 after on SQLite).
    expect(costs.prepared).toBe(0);
    expect(costs.promises).toBeLessThanOrEqual(postgres ? 40 : 25);
  });

  it('when a carrier’s services are priced for a patient, then the key and one query compiled once (carrier, patient, clinic, services, state prices) are all it asks', async () => {
    const costs = await measure({ method: 'GET', url: `/api/external/carriers/fedex/services?patientId=${setup.patientId}` });
    expect(costs.queries).toBe(2);
    expect(costs.compiled).toBe(0);
    expect(costs.prepared).toBe(0);
    expect(costs.promises).toBeLessThanOrEqual(postgres ? 40 : 25);
  });

  it('when an order is created, then nothing is compiled at the request (reads compiled once, rows compiled once per shape) and PostgreSQL parses nothing (every statement named)', async () => {
    const costs = await measure({ method: 'POST', url: '/api/external/medication-order', body: orderBody(setup) });
    // Key, parties, formulary, the change (on SQLite BEGIN, six inserts, COMMIT; on PostgreSQL one statement).
    expect(costs.queries).toBe(postgres ? 4 : 11);
    expect(costs.compiled).toBe(0);
    expect(costs.prepared).toBe(0);
    // 88 promises on SQLite and 129 on PostgreSQL before the rows were compiled once per shape.
    expect(costs.promises).toBeLessThanOrEqual(postgres ? 80 : 50);
  });

  it('when a refrigerated order is on a service that is not cold-chain eligible, then its warning costs no statement: the service\u2019s flag comes with its price', async () => {
    const body = orderBody(setup, { is_refrigerated: true, service_id: 'fedex_ground' });
    const costs = await measure({ method: 'POST', url: '/api/external/medication-order', body });
    expect(costs.queries).toBe(postgres ? 4 : 11);
    expect(costs.compiled).toBe(0);
    expect(costs.prepared).toBe(0);
  });

  it('when an order names an entry with a formula, then it is checked in a transaction after the patient\u2019s lock (the items in use), and a held order has one more row', async () => {
    const entry = await t.operator.post(`/api/admin/clinics/${setup.clinic.clinicId}/medications`, {
      name: 'Low-dose naltrexone',
      ingredients: [{ name: 'Naltrexone Hydrochloride', strength: '4.5', unit: 'mg', active: true }],
      preparation: 'non_sterile',
      bud_category: 'solid',
      storage: 'room',
    });
    expect(entry.status).toBe(200);
    const body = orderBody(setup, {
      medication_requests: [{ medication: 'Low-dose naltrexone', dose: '4.5mg', quantity: 1, direction: 'At bedtime' }],
    });
    // The warm-up's orders are in use when the counted ones arrive: each counted order is held (duplicate therapy).
    const costs = await measure({ method: 'POST', url: '/api/external/medication-order', body });
    // Key, parties (with the allergies), formulary, then the change's transaction: BEGIN, the patient's
    // intake lock (PostgreSQL only), items in use, the rows (on SQLite eight inserts: the hold's row
    // too), COMMIT. The checks run after the lock so that two orders of one patient at once see each
    // other (issue 39).
    expect(costs.queries).toBe(postgres ? 8 : 14);
    // Inside a transaction the items in use (and on PostgreSQL the lock) are compiled at the request,
    // and PostgreSQL parses them and the change's statement (unnamed).
    expect(costs.compiled).toBe(postgres ? 2 : 1);
    expect(costs.prepared).toBe(postgres ? 5 : 0);
  });

  it('when a partner is answered, then its request log entry adds no statement to its request: twenty requests’ entries are written later by one INSERT', async () => {
    const costs = await measureRequestCosts(
      t,
      { method: 'GET', url: '/api/external/carriers', headers: { 'x-api-key': setup.clinic.apiKey } },
      // The request log's buffer is written in each window too, so that its INSERT is counted.
      {
        requests: 20,
        settle: async () => {
          await t.ctx.audit.flush();
          await t.ctx.requestLog.flush();
        },
      },
    );
    const logInserts = costs.statements.filter((statement) => /^insert into "request_log"/i.test(statement.sql));
    expect(logInserts.map((statement) => statement.perRequest)).toEqual([1 / 20]);
    // The request's own two (the key, the carriers), and one twentieth of the batch's INSERT.
    expect(costs.queries).toBe(2 + 1 / 20);
    expect(costs.hooks).toBe(3);
  });

  it('when a request log row is written, then it goes into two b-trees on SQLite (the table, keyed by the request id; the clinic’s index) and three on PostgreSQL (the heap, the key, the clinic’s index)', async () => {
    // Each b-tree is a cost of every row (docs/performance.md, "The request log"): migration 015's
    // table had four (row id, its key, the clinic's index, the request-id index).
    const structures = postgres
      ? await sql<{
          name: string;
        }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename = 'request_log' order by 1`.execute(
          t.ctx.db,
        )
      : // In the log's own file (db/request-log-store.ts), none in the main one.
        await sql<{
          name: string;
        }>`select name from request_log_store.sqlite_master where tbl_name = 'request_log' union all select name from main.sqlite_master where tbl_name = 'request_log' order by 1`.execute(
          t.ctx.db,
        );
    expect(structures.rows.map((row) => row.name)).toEqual(
      postgres ? ['request_log_clinic_at_idx', 'request_log_pkey'] : ['request_log', 'request_log_clinic_at_idx'],
    );
  });

  it('when a partner reads, then three hooks run (one onRequest, one onSend, one onResponse): no cookie parsing, no console header hook', async () => {
    const costs = await measure({ method: 'GET', url: '/api/external/carriers' });
    expect(costs.hooks).toBe(3);
  });

  it('when a patient is read, then the key, the patient and the read’s audit row are three queries, none compiled at the request, none parsed', async () => {
    const costs = await measure({ method: 'GET', url: `/api/external/patient/${setup.patientId}` });
    expect(costs.queries).toBe(3);
    // The audit row's INSERT is compiled once per shape (db/row-insert.ts) and named on PostgreSQL.
    expect(costs.compiled).toBe(0);
    expect(costs.prepared).toBe(0);
    expect(costs.transactions).toBe(0);
  });

  it('when an order is read, then it costs five queries (key, the order with its items and their fills, history, the shipments with their events, audit row), none compiled at the request', async () => {
    const costs = await measure({ method: 'GET', url: `/api/external/medication-order/${orderId}` });
    // The shipments and their journeys are one left-joined query (issue 31), compiled once; the order,
    // its items and their fills another (issue 38, item 7: seven queries before).
    expect(costs.queries).toBe(5);
    expect(costs.compiled).toBe(0);
    expect(costs.transactions).toBe(0);
  });

  it('when a practitioner is created, then PostgreSQL is asked twice (key, one statement), SQLite writes in one transaction', async () => {
    const costs = await measure({
      method: 'POST',
      url: '/api/external/practitioner',
      body: practitionerBody(setup.clinic.clinicId),
    });
    expect(costs.queries).toBe(postgres ? 2 : 5);
    expect(costs.transactions).toBe(postgres ? 0 : 1);
  });

  it('when an order is created with an Idempotency-Key, then the key’s mark rides in the change: six statements on PostgreSQL, no BEGIN', async () => {
    const costs = await measure({
      method: 'POST',
      url: '/api/external/medication-order',
      body: orderBody(setup),
      headers: { 'idempotency-key': 'counts-{{seq}}' },
    });
    // Key, claim, parties, formulary, the change (rows, audit, event, mark), the stored answer.
    expect(costs.queries).toBe(postgres ? 6 : 14);
    expect(costs.transactions).toBe(postgres ? 0 : 1);
    // The key's claim, row and stored answer are compiled once (idempotency.repository.ts) and named on
    // PostgreSQL: only the mark inside the change is compiled (3 compiles and 2 parses before).
    expect(costs.compiled).toBe(1);
    expect(costs.prepared).toBe(0);
    if (postgres) expect(costs.promises).toBeLessThanOrEqual(110);
    // SQLite writes the change's rows in one synchronous transaction (db/direct-statement.ts): 316
    // promises a request before, 143 after, 55 with the key's statements compiled once.
    if (!postgres) expect(costs.promises).toBeLessThanOrEqual(70);
  });
});

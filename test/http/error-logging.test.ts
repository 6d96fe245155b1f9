import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { errorForLog, logSerializers } from '../../src/http/logging.js';
import { CapturedLogs } from '../helpers/captured-logs.js';
import { patientBody } from '../helpers/fixtures.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

const PATIENT = '/api/external/patient';
/** The only keys a logged error may have (see src/http/logging.ts). */
const SAFE_ERR_KEYS = ['type', 'message', 'code', 'stack', 'cause', 'aggregateErrors'];

describe.each(DIALECTS)('error responses and their logs on %s', (dialect) => {
  let t: TestApp;
  let clinic: TestClinic;
  const logs = new CapturedLogs();

  beforeAll(async () => {
    t = await TestApp.start({ dialect, logStream: logs.stream });
    clinic = await t.createClinic();
  });
  afterAll(async () => t.close());
  beforeEach(() => {
    logs.raw.length = 0;
  });

  const requestId = (res: { headers: Record<string, unknown> }) => String(res.headers['x-request-id']);
  const internalError = (reqId: string) => ({
    success: false,
    error: { message: 'Internal server error', code: 'INTERNAL_ERROR', request_id: reqId },
  });

  it('when the request body is malformed JSON, then 400 Malformed JSON, logged as a refusal and not as an error', async () => {
    const res = await t.request('POST', PATIENT, {
      headers: { 'x-api-key': clinic.apiKey, accept: 'application/json', 'content-type': 'application/json' },
      payload: '{"first_name": "Grace", "last_name": ',
    });

    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^Malformed JSON/),
      details: { body: 'must be valid JSON' },
    });
    expect(logs.errors(requestId(res))).toEqual([]);
    expect(logs.lines(requestId(res))).toContainEqual(
      expect.objectContaining({ msg: 'request refused', code: 'VALIDATION_ERROR', status: 400 }),
    );
  });

  it('when a stored value fails to parse, then 500 INTERNAL_ERROR that reveals nothing, logged once as a SyntaxError without the value', async () => {
    const created = await t
      .partner(clinic.apiKey)
      .post(PATIENT, patientBody(clinic.clinicId, { contacts: [{ key: 'email', value: 'zed.private@example.com' }] }));
    expect(created.status).toBe(200);
    const patientId: string = created.body.data.patient_id;
    // A corrupt row: the parser's message would quote it ("...","value":zed.privat"... is not valid JSON").
    await t.ctx.db
      .updateTable('patients')
      .set({ contacts: '[{"key":"email","value":zed.private@example.com}]' })
      .where('id', '=', patientId)
      .execute();
    logs.raw.length = 0;

    const res = await t.partner(clinic.apiKey).get(`${PATIENT}/${patientId}`);

    expect(res.status).toBe(500);
    expect(res.body).toEqual(internalError(requestId(res)));
    const errors = logs.errors(requestId(res));
    expect(errors).toHaveLength(1);
    const err = errors[0]?.err ?? {};
    expect(err.type).toBe('SyntaxError');
    expect(err.message).toEqual(expect.stringMatching(/JSON/));
    expect(err.stack).toEqual(expect.stringMatching(/^SyntaxError: [\s\S]*\n\s+at JSON\.parse/));
    expect(Object.keys(err).every((key) => SAFE_ERR_KEYS.includes(key))).toBe(true);
    expect(logs.text).not.toContain('zed.priv');
  });

  it('when the database refuses a row of patient data, then 500 and the log has message, code and stack but no row data', async () => {
    if (dialect === 'postgres') {
      await sql`alter table patients add constraint no_zed check (last_name <> 'Zedsecret')`.execute(t.ctx.db);
    } else {
      await sql`create trigger no_zed before insert on patients when new.last_name = 'Zedsecret' begin select raise(abort, 'refused'); end`.execute(
        t.ctx.db,
      );
    }

    const res = await t
      .partner(clinic.apiKey)
      .post(PATIENT, patientBody(clinic.clinicId, { first_name: 'Quintessa', last_name: 'Zedsecret', dob: '1971-03-04' }));

    expect(res.status).toBe(500);
    expect(res.body).toEqual(internalError(requestId(res)));
    const errors = logs.errors(requestId(res));
    expect(errors).toHaveLength(1);
    const err = errors[0]?.err ?? {};
    expect(err).toMatchObject({
      message: expect.stringMatching(dialect === 'postgres' ? /violates check constraint "no_zed"/ : /refused/),
      code: dialect === 'postgres' ? '23514' : 'SQLITE_CONSTRAINT_TRIGGER',
      stack: expect.any(String),
    });
    expect(Object.keys(err).every((key) => SAFE_ERR_KEYS.includes(key))).toBe(true);
    for (const leak of [
      'Failing row',
      'Zedsecret',
      'Quintessa',
      '1971-03-04',
      'Sacramento',
      '"detail"',
      '"parameters"',
      '"where"',
      '"table"',
    ]) {
      expect(logs.text).not.toContain(leak);
    }
  });
});

describe('the error serializer of the logs', () => {
  it('when an error carries driver fields and causes, then only type, message, code and stack are kept, at every depth', () => {
    const root = Object.assign(new Error('connection lost'), {
      code: 'ECONNRESET',
      detail: 'Failing row contains (Quintessa)',
      parameters: ['Quintessa'],
    });
    const middle = Object.assign(new Error('query failed', { cause: root }), {
      code: '23514',
      where: 'SQL statement',
      table: 'patients',
      row: { last_name: 'Zedsecret' },
    });
    const top = new TypeError('request failed', { cause: middle });

    const out = errorForLog(top);

    expect(out).toEqual({
      type: 'TypeError',
      message: 'request failed',
      stack: expect.stringMatching(/^TypeError: request failed\n/),
      cause: {
        type: 'Error',
        message: 'query failed',
        code: '23514',
        stack: expect.any(String),
        cause: { type: 'Error', message: 'connection lost', code: 'ECONNRESET', stack: expect.any(String) },
      },
    });
    expect(JSON.stringify(out)).not.toMatch(/Quintessa|Zedsecret|Failing row|patients/);
  });

  it("when a pino logger of the service (the standalone worker's) logs a driver error, then no row data is written", () => {
    const raw: string[] = [];
    const logger = pino({ serializers: logSerializers }, { write: (line: string) => void raw.push(line) });
    const driverError = () =>
      Object.assign(new Error('new row for relation "patients" violates check constraint "no_zed"'), {
        code: '23514',
        detail: 'Failing row contains (Quintessa, Zedsecret, 1971-03-04)',
      });

    logger.error({ err: driverError() }, 'webhook attempt could not be recorded');
    logger.error(driverError());

    expect(raw).toHaveLength(2);
    for (const line of raw) {
      expect(JSON.parse(line).err).toMatchObject({ type: 'Error', code: '23514', message: expect.stringMatching(/no_zed/) });
      expect(line).not.toMatch(/Failing row|Quintessa|Zedsecret|1971-03-04|"detail"/);
    }
  });

  it('when causes loop or nest deeply, then the chain is cut at a bounded depth', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    let depth = 0;
    for (
      let cause = (errorForLog(a) as { cause?: unknown }).cause;
      cause !== undefined;
      cause = (cause as { cause?: unknown }).cause
    )
      depth += 1;
    expect(depth).toBeGreaterThan(0);
    expect(depth).toBeLessThanOrEqual(5);
  });

  it('when the thrown value is not an Error, then only its name, message and code survive', () => {
    expect(errorForLog({ message: 'boom', code: 'E1', detail: 'Failing row contains (Quintessa)' })).toEqual({
      type: 'Object',
      message: 'boom',
      code: 'E1',
      stack: 'Object: boom',
    });
    expect(errorForLog('plain text')).toEqual({ type: 'string', message: 'plain text', stack: 'string: plain text' });
    expect(errorForLog(null)).toEqual({ type: 'null', message: 'null', stack: 'null: null' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapturedLogs } from '../helpers/captured-logs.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';

/**
 * One log line per answered request (src/http/request-log.ts): method, route pattern, client
 * address, status, duration and request id; never the URL. Logging does not depend on the
 * database: SQLite only.
 */
describe('the request log line', () => {
  const logs = new CapturedLogs();
  let t: TestApp;
  let clinic: TestClinic;
  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite', logStream: logs.stream });
    clinic = await t.createClinic();
  });
  afterAll(() => t.close());

  it('when a request is answered, then exactly one line is logged for it, with method, route, status, duration and request id', async () => {
    const res = await t.partner(clinic.apiKey).get('/api/external/carriers');
    expect(res.status).toBe(200);
    const reqId = res.headers['x-request-id'] as string;
    expect(logs.lines(reqId)).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request completed',
        reqId,
        req: { method: 'GET', route: '/api/external/carriers', remoteAddress: '127.0.0.1' },
        statusCode: 200,
        durationMs: expect.any(Number),
      }),
    ]);
  });

  it('when a refused URL carries a name in its path and query string, then its one request line names the route, never the URL', async () => {
    const res = await t.partner(clinic.apiKey).get('/api/external/patient/Vantongeren?last_name=Okonkwo-Reyes');
    expect(res.status).toBe(400);
    const completed = logs.lines(res.headers['x-request-id'] as string).filter((line) => line.msg === 'request completed');
    expect(completed).toEqual([
      expect.objectContaining({ req: expect.objectContaining({ route: '/api/external/patient/:patientId' }), statusCode: 400 }),
    ]);
    expect(completed[0]).not.toHaveProperty('url');
    expect(logs.text).not.toContain('Vantongeren');
    expect(logs.text).not.toContain('Okonkwo');
  });

  it('when the router refuses a request (no such path), then it is logged once too, as unmatched', async () => {
    const res = await t.partner(clinic.apiKey).get('/api/external/patients/Vantongeren');
    expect(res.status).toBe(404);
    const lines = logs.lines(res.headers['x-request-id'] as string);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        req: expect.objectContaining({ route: 'unmatched' }),
        statusCode: 404,
      }),
    ]);
  });
});

describe('the request log at debug', () => {
  it("when LOG_LEVEL is debug, then a request's arrival is logged as well, before its answer", async () => {
    const logs = new CapturedLogs();
    const t = await TestApp.start({ dialect: 'sqlite', logStream: logs.stream, env: { LOG_LEVEL: 'debug' } });
    try {
      const res = await t.request('GET', '/healthz');
      expect(logs.lines(res.headers['x-request-id'] as string).map((line) => line.msg)).toEqual([
        'incoming request',
        'request completed',
      ]);
    } finally {
      await t.close();
    }
  });
});

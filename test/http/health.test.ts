import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp } from '../helpers/test-app.js';

describe.each(DIALECTS)('health probes on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  it('when the process is up, then /healthz answers 200 without a key', async () => {
    const res = await t.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('when the database answers, then /readyz answers 200', async () => {
    const res = await t.request('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });

  it('when the database is closed, then /readyz answers 503 with the error envelope', async () => {
    const other = await TestApp.start({ dialect });
    await other.ctx.db.destroy();
    const res = await other.request('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    await other.close();
  });
});

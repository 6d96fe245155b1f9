import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureRequestCosts } from '../helpers/request-costs.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * The measurer itself (test/helpers/request-costs.ts), on routes whose costs are known by their
 * code: what a regression test of a route's count relies on. Counts only, never a timing.
 */
for (const dialect of DIALECTS) {
  describe(`measuring what a request costs (${dialect})`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await TestApp.start({ dialect, logStream: { write: () => undefined } });
    });
    afterAll(async () => {
      await t.close();
    });

    it('when a route asks nothing of the database, then no query is counted, and its hooks and log line are', async () => {
      const costs = await measureRequestCosts(t, { method: 'GET', url: '/healthz' }, { requests: 10, warmup: 3 });

      expect(costs.queries).toBe(0);
      expect(costs.compiled).toBe(0);
      expect(costs.hooks).toBeGreaterThan(0);
      expect(costs.hooksByName.onRequest).toBeGreaterThan(0);
      expect(costs.linesLogged).toBe(1);
      expect(costs.bytesLogged).toBeGreaterThan(0);
    });

    it('when a route pings the database once, then exactly one query is counted per request, outside any transaction', async () => {
      const costs = await measureRequestCosts(t, { method: 'GET', url: '/readyz' }, { requests: 10, warmup: 3 });

      expect(costs.queries).toBe(1);
      expect(costs.compiled).toBe(1);
      expect(costs.transactions).toBe(0);
      expect(costs.statements).toEqual([{ sql: 'select 1', perRequest: 1 }]);
      expect(costs.promises).toBeGreaterThan(0);
    });

    it('when an answer is not of the expected status, then the measurement fails with it', async () => {
      await expect(
        measureRequestCosts(t, { method: 'GET', url: '/api/external/carriers' }, { requests: 2, warmup: 1 }),
      ).rejects.toThrow(/401/);
    });
  });
}

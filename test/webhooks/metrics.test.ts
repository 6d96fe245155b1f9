import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { dispatchOutbox } from '../../src/delivery/dispatcher.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TestApp } from '../helpers/test-app.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { emitEvent, registerEndpoint } from './support.js';

/**
 * A metric's value as a scrape would read it (a gauge's `collect()` runs here); `series` picks one
 * of a histogram's series (`…_count`).
 */
async function valueOf(
  ctx: Pick<AppContext, 'metrics'>,
  name: string,
  labels: Record<string, string> = {},
  series = name,
): Promise<number> {
  const metric = ctx.metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const match = values.find(
    (v) =>
      ((v as { metricName?: string }).metricName ?? name) === series &&
      Object.entries(labels).every(([k, want]) => v.labels[k] === want),
  );
  return match?.value ?? 0;
}

for (const dialect of DIALECTS) {
  describe(`webhook metrics on ${dialect}`, () => {
    let t: TestApp;
    let worker: WebhookWorker;
    const receivers: WebhookReceiver[] = [];
    const receiver = async (...script: Parameters<typeof WebhookReceiver.start>) => {
      const r = await WebhookReceiver.start(...script);
      receivers.push(r);
      return r;
    };
    beforeAll(async () => {
      // One attempt per delivery, and a short timeout for the endpoint that never answers.
      t = await TestApp.start({ dialect, env: { WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_TIMEOUT_MS: '300' } });
      worker = new WebhookWorker(t.ctx);
    });
    afterEach(async () => {
      await Promise.all(receivers.splice(0).map((r) => r.stop()));
    });
    afterAll(async () => {
      await worker.stop();
      await t.close();
    });

    it('when attempts succeed, fail with a status, time out or cannot connect, then each is counted and timed under its outcome', async () => {
      const clinic = await t.createClinic();
      const down = await receiver();
      const downUrl = down.url();
      await down.stop();
      for (const url of [
        (await receiver([{ status: 204 }])).url(),
        (await receiver([{ status: 500 }])).url(),
        (await receiver([{ hang: true }])).url(),
        downUrl,
      ]) {
        await registerEndpoint(t, clinic, url);
      }
      await emitEvent(t.ctx, clinic.clinicId);
      await worker.drain();

      for (const outcome of ['success', 'http_error', 'timeout', 'network_error']) {
        expect(await valueOf(t.ctx, 'webhook_delivery_attempts_total', { outcome }), outcome).toBe(1);
        const timed = await valueOf(
          t.ctx,
          'webhook_delivery_attempt_duration_seconds',
          { outcome },
          'webhook_delivery_attempt_duration_seconds_count',
        );
        expect(timed, outcome).toBe(1);
      }
      expect(await valueOf(t.ctx, 'webhook_delivery_attempts_total', { outcome: 'refused' })).toBe(0);
      const text = await t.ctx.metrics.registry.getSingleMetricAsString('webhook_delivery_attempts_total');
      expect(text).toContain('webhook_delivery_attempts_total{outcome="timeout"} 1');
    });

    it('when events wait to be fanned out and deliveries wait to be sent, then the backlog gauges show them at each scrape', async () => {
      const clinic = await t.createClinic();
      await registerEndpoint(t, clinic, (await receiver()).url());
      await registerEndpoint(t, clinic, (await receiver()).url());
      // Earlier tests left nothing pending (one attempt each, then delivered or failed).
      expect(await valueOf(t.ctx, 'webhook_outbox_backlog')).toBe(0);
      expect(await valueOf(t.ctx, 'webhook_delivery_backlog')).toBe(0);

      for (let i = 0; i < 3; i++) await emitEvent(t.ctx, clinic.clinicId);
      expect(await valueOf(t.ctx, 'webhook_outbox_backlog')).toBe(3);
      expect(await valueOf(t.ctx, 'webhook_delivery_backlog')).toBe(0);

      await dispatchOutbox(t.ctx);
      expect(await valueOf(t.ctx, 'webhook_outbox_backlog')).toBe(0);
      expect(await valueOf(t.ctx, 'webhook_delivery_backlog')).toBe(6);

      await worker.drain();
      expect(await valueOf(t.ctx, 'webhook_delivery_backlog')).toBe(0);
      const text = await t.ctx.metrics.registry.metrics();
      expect(text).toContain('# TYPE webhook_outbox_backlog gauge');
      expect(text).toContain('webhook_delivery_backlog 0');
    });
  });
}

describe('webhook backlog gauges when the database fails', () => {
  it('when the counts cannot be read, then the scrape still answers, with the backlog as NaN', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    const runtime = await openRuntime({ ...config, database: { kind: 'sqlite', filename: ':memory:' } });
    await runtime.close();
    expect(await valueOf(runtime.ctx, 'webhook_outbox_backlog')).toBeNaN();
    expect(await valueOf(runtime.ctx, 'webhook_delivery_backlog')).toBeNaN();
    expect(await runtime.ctx.metrics.registry.metrics()).toContain('webhook_outbox_backlog Nan');
  });
});

import { partnerAuditContext } from '../../src/audit/audit-actor.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { listensOnlyOnLoopback, urlPolicyOf } from '../../src/delivery/url-safety.js';
import { registerEndpointForPartner } from '../../src/webhooks/webhook.service.js';
import { DIALECTS } from '../helpers/test-db.js';
import { TEST_DATA_ENCRYPTION_KEY, TestApp } from '../helpers/test-app.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { attemptsOf, deliveriesOf, emitEvent, fastEnv, registerEndpoint } from './support.js';

/**
 * Internal webhook targets (loopback, private, link-local...) are refused in every environment,
 * except on a development server listening only on loopback or with WEBHOOK_ALLOW_PRIVATE_TARGETS.
 */
describe('which servers may call internal webhook targets', () => {
  it.each(['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1'])(
    'when HOST is %s, then the server listens only on loopback',
    (host) => {
      expect(listensOnlyOnLoopback(host)).toBe(true);
    },
  );

  it.each(['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'fd00::1', 'api.example.com', 'localhost.example.com'])(
    'when HOST is %s, then the server is reachable from elsewhere',
    (host) => {
      expect(listensOnlyOnLoopback(host)).toBe(false);
    },
  );

  const prod = {
    FULFILLMENT_ENV: 'production',
    ADMIN_TOKEN: 'private-targets-operator-token-0123456789',
    DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY,
  };
  it.each<[string, Record<string, string>, boolean]>([
    ['a development server on its default host (127.0.0.1)', {}, true],
    ['a development server on every interface', { HOST: '0.0.0.0' }, false],
    ['a development server on a LAN address', { HOST: '192.168.1.10' }, false],
    ['a server on every interface whose operator allows them', { HOST: '0.0.0.0', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, true],
    ['production', prod, false],
    ['production on 127.0.0.1 (behind a local proxy, so reachable)', { ...prod, HOST: '127.0.0.1' }, false],
    ['production whose operator allows them', { ...prod, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, true],
  ])('when the server is %s, then internal targets allowed is %s', (_server, env, allowed) => {
    expect(urlPolicyOf(loadConfig(env)).allowPrivate).toBe(allowed);
  });
});

for (const dialect of DIALECTS) {
  describe(`internal webhook targets on ${dialect}`, () => {
    let exposed: TestApp;
    const receivers: WebhookReceiver[] = [];
    const receiver = async () => {
      const r = await WebhookReceiver.start();
      receivers.push(r);
      return r;
    };
    beforeAll(async () => {
      // A development server listening on every interface: partners on the network can reach it.
      // Retries an hour apart: one drain makes exactly one attempt.
      exposed = await TestApp.start({ dialect, env: fastEnv({ HOST: '0.0.0.0', WEBHOOK_RETRY_SCHEDULE: '0,1h' }) });
    });
    afterEach(async () => {
      await Promise.all(receivers.splice(0).map((r) => r.stop()));
    });
    afterAll(async () => exposed.close());

    it.each([
      ['http://127.0.0.1:4000/hook', /private or internal address \(127\.0\.0\.1\)/],
      ['http://10.1.2.3/hook', /private or internal address \(10\.1\.2\.3\)/],
      ['http://169.254.169.254/latest/meta-data', /private or internal address \(169\.254\.169\.254\)/],
      ['http://[::1]:4000/hook', /private or internal address \(::1\)/],
      ['http://[fd00::1]/hook', /private or internal address \(fd00::1\)/],
      ['http://localhost:4000/hook', /local host name \(localhost\)/],
    ])('when a development server on 0.0.0.0 is asked to register %s, then 400 naming webhook_url', async (url, problem) => {
      const clinic = await exposed.createClinic();
      const res = await exposed
        .partner(clinic.apiKey)
        .post('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_url: url });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.webhook_url).toMatch(problem);
    });

    it('when a development server listens on 127.0.0.1, then a receiver on 127.0.0.1 is accepted and delivered to', async () => {
      const local = await TestApp.start({ dialect, env: fastEnv({ HOST: '127.0.0.1' }) });
      const worker = new WebhookWorker(local.ctx);
      try {
        const clinic = await local.createClinic();
        const r = await receiver();
        await registerEndpoint(local, clinic, r.url());
        const eventId = await emitEvent(local.ctx, clinic.clinicId);
        await worker.drain();
        expect(r.received.map((got) => got.headers['webhook-id'])).toEqual([eventId]);
      } finally {
        await worker.stop();
        await local.close();
      }
    });

    it('when WEBHOOK_ALLOW_PRIVATE_TARGETS=true, then a server on 0.0.0.0 accepts internal targets', async () => {
      const open = await TestApp.start({ dialect, env: fastEnv({ HOST: '0.0.0.0', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }) });
      try {
        const clinic = await open.createClinic();
        await registerEndpoint(open, clinic, 'http://127.0.0.1:4000/hook');
        await registerEndpoint(open, clinic, 'http://10.1.2.3/hook');
        await registerEndpoint(open, clinic, 'http://[fd00::1]/hook');
      } finally {
        await open.close();
      }
    });

    it('when an endpoint registered under an earlier configuration points to loopback, then every delivery attempt is refused before connecting and counted as refused', async () => {
      const clinic = await exposed.createClinic();
      const r = await receiver();
      // Registered while the server still allowed it (HOST was 127.0.0.1, or the override was set).
      const permissive = { ...exposed.ctx, config: { ...exposed.ctx.config, webhookAllowPrivateTargets: true } };
      const { webhook_id: webhookId } = await registerEndpointForPartner(
        permissive,
        { clinicId: clinic.clinicId, apiKeyId: clinic.apiKeyId },
        { clinic_id: clinic.clinicId, webhook_url: r.url() },
        partnerAuditContext({ clinicId: clinic.clinicId, apiKeyId: clinic.apiKeyId }),
      );
      const eventId = await emitEvent(exposed.ctx, clinic.clinicId);
      const worker = new WebhookWorker(exposed.ctx);
      try {
        await worker.drain();
      } finally {
        await worker.stop();
      }
      const [attempt] = await attemptsOf(exposed.ctx, eventId);
      expect(attempt).toMatchObject({ response_status: null, error: expect.stringMatching(/^refused: .*SSRF protection/) });
      const [delivery] = await deliveriesOf(exposed.ctx, eventId);
      expect(delivery).toMatchObject({ status: 'pending', attempt_count: 1 });
      const counted = await exposed.ctx.metrics.webhookAttempts.get();
      expect(counted.values.find((v) => v.labels.outcome === 'refused')?.value).toBe(1);

      // The test call says "refused", without the address.
      const test = await exposed
        .partner(clinic.apiKey)
        .post('/api/external/webhook/test', { clinic_id: clinic.clinicId, webhook_id: webhookId });
      expect(test.body.data).toMatchObject({ delivered: false, status_code: null, error: 'refused' });
      expect(test.body.message).toBe('Test event not delivered: refused: the URL points to a private or internal address');
      expect(r.received).toHaveLength(0);
    });
  });
}

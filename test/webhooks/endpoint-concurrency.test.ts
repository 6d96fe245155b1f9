import { partnerAuditContext } from '../../src/audit/audit-actor.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/bootstrap.js';
import { createClinic, issueApiKey } from '../../src/clinics/clinic.service.js';
import { loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { registerEndpointForPartner } from '../../src/webhooks/webhook.service.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';
import { Gate, WebhookReceiver } from '../helpers/webhook-receiver.js';
import { emitEvent, fakeClock, setEndpointLimits } from './support.js';

/**
 * The per-endpoint limit holds across workers: two workers on one database (on PostgreSQL in two
 * runtimes with pools of their own, as two instances; SQLite is one process, so one runtime) never
 * have more than the endpoint's `max_in_flight` attempts in flight to it between them. The
 * workers are not started: `drain()` claims what is due and waits for its own attempts, so a drain
 * that returns while the receiver holds answers has looked at the queue and claimed nothing.
 */
for (const dialect of DIALECTS) {
  describe(`the per-endpoint limit across two webhook workers on ${dialect}`, () => {
    let database: TestDatabase;
    const runtimes: Runtime[] = [];
    let contexts: [AppContext, AppContext];
    const receivers: WebhookReceiver[] = [];
    const workers: WebhookWorker[] = [];

    const open = async () => {
      const config = loadConfig({ LOG_LEVEL: 'silent', RUN_WORKER: 'false', WEBHOOK_RETRY_SCHEDULE: '0,100ms,100ms' });
      const runtime = await openRuntime(
        { ...config, database: database.config },
        database.schema ? { postgres: { schema: database.schema, poolSize: 4 } } : {},
      );
      runtimes.push(runtime);
      return runtime.ctx;
    };

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      const first = await open();
      contexts = [first, dialect === 'postgres' ? await open() : first];
    });
    afterAll(async () => {
      await Promise.all(workers.map((w) => w.stop()));
      await Promise.all(receivers.map((r) => r.stop()));
      await Promise.all(runtimes.map((r) => r.close()));
      await database.drop();
    });

    /** A clinic with one endpoint on a fresh receiver, and two workers with this limit. */
    const setUp = async (limit: number) => {
      const [ctx] = contexts;
      const receiver = await WebhookReceiver.start();
      receivers.push(receiver);
      const clinic = await createClinic(ctx, { name: `Busy Clinic ${limit}` }, null);
      const key = await issueApiKey(ctx, clinic.clinic_id, null);
      const { webhook_id } = await registerEndpointForPartner(
        ctx,
        { clinicId: clinic.clinic_id, apiKeyId: key.api_key_id },
        { clinic_id: clinic.clinic_id, webhook_url: receiver.url() },
        partnerAuditContext({ clinicId: clinic.clinic_id, apiKeyId: key.api_key_id }),
      );
      await setEndpointLimits(ctx, webhook_id, { max_in_flight: limit });
      const pair = contexts.map((c) => new WebhookWorker(c, { concurrency: 4 }));
      workers.push(...pair);
      return { ctx, clinicId: clinic.clinic_id, receiver, pair };
    };

    /** Resolves with what happened first: `drain` returned, or a request over `limit` reached the receiver. */
    const drainOrOverflow = (drain: Promise<void>, receiver: WebhookReceiver, limit: number) =>
      Promise.race([
        drain.then(() => 'returned'),
        receiver.waitFor(limit + 1).then(
          () => 'a request over the limit arrived',
          () => 'timed out: the drain did not return',
        ),
      ]);

    it.each([1, 2])(
      'when both workers claim deliveries of one endpoint with a limit of %i, then the endpoint never has more attempts in flight than that',
      async (limit) => {
        const { ctx, clinicId, receiver, pair } = await setUp(limit);
        const gate = new Gate();
        receiver.respondWith({ heldBy: gate });
        // More due deliveries than one claim looks at (3 × concurrency), so that two claims at once
        // lock different deliveries of the endpoint and only the endpoint's claim lock separates them.
        const ids: string[] = [];
        for (let i = 0; i < 30; i++) ids.push(await emitEvent(ctx, clinicId));

        // Both at once: one takes `limit` deliveries and waits on their held answers; the other
        // finds the endpoint full and returns empty-handed.
        const drains = pair.map((w) => w.drain());
        const first = await Promise.race(drains.map(async (drain, index) => (await drain, index)));
        await receiver.waitFor(limit);
        expect(receiver.pending).toBe(limit);
        // Again, now that the first claim has committed: still nothing for the second worker.
        expect(await drainOrOverflow(pair[first]!.drain(), receiver, limit)).toBe('returned');
        expect(receiver.received).toHaveLength(limit);

        gate.release();
        await Promise.all(drains);
        // More events, both workers at once, answers now immediate: still never more than `limit` at
        // once. A drain returns when its worker can claim nothing more (the other may hold the slot,
        // or be locking the rows): the last drain, alone, delivers whatever is left.
        for (let i = 0; i < 10; i++) ids.push(await emitEvent(ctx, clinicId));
        await Promise.all(pair.map((w) => w.drain()));
        await pair[0]!.drain();

        const rows = await ctx.db.selectFrom('webhook_deliveries').select('status').where('event_id', 'in', ids).execute();
        expect(rows.map((r) => r.status)).toEqual(Array(40).fill('delivered'));
        expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids));
        expect(receiver.received).toHaveLength(40);
        expect(receiver.peakPending).toBe(limit);
      },
    );

    it('when one endpoint is full, then the other worker still serves another endpoint', async () => {
      const busy = await setUp(1);
      const gate = new Gate();
      busy.receiver.respondWith({ heldBy: gate });
      const other = await WebhookReceiver.start();
      receivers.push(other);
      const otherClinic = await createClinic(busy.ctx, { name: 'Quiet Clinic' }, null);
      const otherKey = await issueApiKey(busy.ctx, otherClinic.clinic_id, null);
      await registerEndpointForPartner(
        busy.ctx,
        { clinicId: otherClinic.clinic_id, apiKeyId: otherKey.api_key_id },
        { clinic_id: otherClinic.clinic_id, webhook_url: other.url() },
        partnerAuditContext({ clinicId: otherClinic.clinic_id, apiKeyId: otherKey.api_key_id }),
      );
      for (let i = 0; i < 3; i++) await emitEvent(busy.ctx, busy.clinicId);
      const [a, b] = busy.pair as [WebhookWorker, WebhookWorker];
      const held = a.drain();
      await busy.receiver.waitFor(1);

      const quietEvent = await emitEvent(busy.ctx, otherClinic.clinic_id);
      expect(await drainOrOverflow(b.drain(), busy.receiver, 1)).toBe('returned');
      expect(other.received.map((r) => r.headers['webhook-id'])).toEqual([quietEvent]);
      expect(busy.receiver.received).toHaveLength(1);

      gate.release();
      await held;
      await b.drain();
      expect(busy.receiver.received).toHaveLength(3);
      expect(busy.receiver.peakPending).toBe(1);
    });
  });
}

/**
 * The per-second limit holds across workers too (issue 18, item 2): two workers on one database (on
 * PostgreSQL, two runtimes as two instances) and one clock the test moves by hand, so that "within
 * one second" is exact whatever the machine's speed.
 */
for (const dialect of DIALECTS) {
  describe(`the per-second limit across two webhook workers on ${dialect}`, () => {
    let database: TestDatabase;
    const runtimes: Runtime[] = [];
    const time = fakeClock();
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      const config = loadConfig({ LOG_LEVEL: 'silent', RUN_WORKER: 'false' });
      const open = async () => {
        const runtime = await openRuntime(
          { ...config, database: database.config },
          { clock: time.clock, ...(database.schema ? { postgres: { schema: database.schema, poolSize: 4 } } : {}) },
        );
        runtimes.push(runtime);
        return runtime.ctx;
      };
      await open();
      if (dialect === 'postgres') await open();
      receiver = await WebhookReceiver.start();
    });
    afterAll(async () => {
      await receiver.stop();
      await Promise.all(runtimes.map((r) => r.close()));
      await database.drop();
    });

    it('when both workers drain an endpoint that allows 2 attempts a second, then it gets 2 in each second between them', async () => {
      const contexts = runtimes.map((r) => r.ctx);
      const ctx = contexts[0]!;
      const clinic = await createClinic(ctx, { name: 'Rate Clinic' }, null);
      const key = await issueApiKey(ctx, clinic.clinic_id, null);
      const identity = { clinicId: clinic.clinic_id, apiKeyId: key.api_key_id };
      const { webhook_id } = await registerEndpointForPartner(
        ctx,
        identity,
        { clinic_id: clinic.clinic_id, webhook_url: receiver.url() },
        partnerAuditContext(identity),
      );
      await setEndpointLimits(ctx, webhook_id, { max_per_second: 2 });
      for (let i = 0; i < 7; i++) await emitEvent(ctx, clinic.clinic_id);
      const pair = [new WebhookWorker(ctx), new WebhookWorker(contexts[1] ?? ctx)];
      try {
        const start = time.now();
        for (const [second, expected] of [
          [0, 2],
          [1, 4],
          [2, 6],
          [3, 7],
        ] as const) {
          time.set(start + second * 1000);
          await Promise.all(pair.map((w) => w.drain()));
          // Again, now that the other worker's drain is over too: still nothing more this second.
          await Promise.all(pair.map((w) => w.drain()));
          expect(receiver.received).toHaveLength(expected);
        }
      } finally {
        await Promise.all(pair.map((w) => w.stop()));
      }
    });
  });
}

import type { AppContext } from '../../src/context.js';
import type { OutboxEventType } from '../../src/events/event-types.js';
import { withOutbox } from '../../src/events/outbox.js';
import { isoNow } from '../../src/clock.js';
import { WebhookWorker, type WebhookWorkerOptions } from '../../src/webhooks/delivery-worker.js';
import type { TestApp, TestClinic } from '../helpers/test-app.js';

/** A quick schedule for tests: three attempts, 50 ms apart (the real one is tested on its own). */
export const FAST_SCHEDULE = '0,50ms,50ms';

export const fastEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  WEBHOOK_RETRY_SCHEDULE: FAST_SCHEDULE,
  WEBHOOK_TIMEOUT_MS: '2000',
  ...extra,
});

export interface Registered {
  webhookId: string;
  secret: string;
}

/** Registers an endpoint through the partner API; throws with the body when refused. */
export async function registerEndpoint(t: TestApp, clinic: TestClinic, url: string): Promise<Registered> {
  const res = await t.partner(clinic.apiKey).post('/api/external/webhook', { clinic_id: clinic.clinicId, webhook_url: url });
  if (res.status !== 200) throw new Error(`register webhook failed with ${res.status}: ${JSON.stringify(res.body)}`);
  return { webhookId: res.body.data.webhook_id, secret: res.body.data.secret };
}

/** Writes an outbox event the way the orders feature does (`withOutbox`: the workers wake after commit). */
export async function emitEvent(
  ctx: AppContext,
  clinicId: string,
  type: OutboxEventType = 'order.created',
  payload: Record<string, unknown> = { medication_request_id: '00000000-0000-4000-8000-000000000001', status: 'pending' },
): Promise<string> {
  return withOutbox(ctx, ({ recordEvent }) => recordEvent(isoNow(ctx.clock), { clinicId, type, payload }));
}

/** Starts a worker on the app's context; stop it with `stopAll`. */
export async function startWorker(t: TestApp, options: WebhookWorkerOptions = {}): Promise<WebhookWorker> {
  return WebhookWorker.start(t.ctx, { pollIntervalMs: 200, ...options });
}

export async function deliveriesOf(ctx: AppContext, eventId: string) {
  return ctx.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).execute();
}

export async function attemptsOf(ctx: AppContext, eventId: string) {
  return ctx.db.selectFrom('webhook_delivery_attempts').selectAll().where('event_id', '=', eventId).orderBy('attempt_number').execute();
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A delivery's row once it reaches one of `statuses`. */
export async function deliveryReaching(ctx: AppContext, eventId: string, statuses: string[], timeoutMs = 5000) {
  return eventually(async () => {
    const rows = await deliveriesOf(ctx, eventId);
    return rows.length > 0 && rows.every((r) => statuses.includes(r.status)) ? rows : undefined;
  }, timeoutMs, `deliveries of ${eventId} to reach ${statuses.join('/')}`);
}

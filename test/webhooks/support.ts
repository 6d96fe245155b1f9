import type { AppContext } from '../../src/context.js';
import type { OutboxEventType } from '../../src/events/event-types.js';
import { runChange } from '../../src/changes/run-change.js';
import { isoNow } from '../../src/clock.js';
import { WebhookWorker, type RecordedAttempt, type WebhookWorkerOptions } from '../../src/delivery/delivery-worker.js';
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

/** Sets an endpoint's limits as the partner's PATCH would (setup for tests of the engine). */
export async function setEndpointLimits(
  ctx: AppContext,
  webhookId: string,
  limits: { max_in_flight?: number; max_per_second?: number | null },
): Promise<void> {
  await ctx.db.updateTable('webhook_endpoints').set(limits).where('id', '=', webhookId).execute();
}

/** Writes an outbox event the way the orders feature does (`runChange`: the workers wake after commit). */
export async function emitEvent(
  ctx: AppContext,
  clinicId: string,
  type: OutboxEventType = 'order.created',
  payload: Record<string, unknown> = { medication_request_id: '00000000-0000-4000-8000-000000000001', status: 'pending' },
): Promise<string> {
  return runChange(ctx, null, (change) => change.event({ clinicId, type, payload }, isoNow(ctx.clock)));
}

/** A poll so long that no test ever sees it: only wake-ups and due retries move a started worker. */
export const NO_POLL_MS = 60 * 60 * 1000;

/**
 * Starts a worker on the app's context; stop it with `stop()`. It polls only every hour, so what it
 * delivers during a test was woken by an event (in-process or NOTIFY) or by its own due-retry timer.
 */
export async function startWorker(t: TestApp, options: WebhookWorkerOptions = {}): Promise<WebhookWorker> {
  const worker = await WebhookWorker.start(t.ctx, { pollIntervalMs: NO_POLL_MS, ...options });
  // Its first look at the queue is over: from here on only a wake-up makes it look again.
  await worker.whenIdle();
  return worker;
}

export async function deliveriesOf(ctx: AppContext, eventId: string) {
  return ctx.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).execute();
}

export async function attemptsOf(ctx: AppContext, eventId: string) {
  return ctx.db
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('event_id', '=', eventId)
    .orderBy('attempt_number')
    .execute();
}

/** A clock the test moves by hand (give `clock` to `TestApp.start`). */
export function fakeClock(start = Date.parse('2030-01-01T09:00:00.000Z')) {
  let now = start;
  return {
    clock: (): Date => new Date(now),
    now: (): number => now,
    advance: (ms: number): void => {
      now += ms;
    },
    set: (ms: number): void => {
      now = ms;
    },
  };
}
export type FakeClock = ReturnType<typeof fakeClock>;

/**
 * Drives a worker that is not started through an event's retry schedule under a fake clock: drains,
 * then moves the clock to the next attempt's due time and drains again, until every delivery of the
 * event is delivered or failed. Returns the deliveries.
 */
export async function settle(worker: WebhookWorker, ctx: AppContext, time: FakeClock, eventId: string, maxDrains = 20) {
  for (let drains = 0; drains < maxDrains; drains++) {
    await worker.drain();
    const rows = await deliveriesOf(ctx, eventId);
    const due = rows.filter((r) => r.status === 'pending').map((r) => Date.parse(r.next_attempt_at ?? ''));
    if (due.length === 0) return rows;
    if (due.some(Number.isNaN)) throw new Error(`a pending delivery of ${eventId} has no next attempt`);
    time.set(Math.max(time.now(), Math.min(...due)));
  }
  throw new Error(`the deliveries of ${eventId} did not settle within ${maxDrains} drains`);
}

/**
 * Resolves with the next attempt the worker records that `matches` (subscribe before causing it).
 * The timeout only turns a hang into a failure; it is generous for loaded CI machines.
 */
export function nextAttempt(
  worker: WebhookWorker,
  matches: (attempt: RecordedAttempt) => boolean = () => true,
  timeoutMs = 15_000,
): Promise<RecordedAttempt> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`the worker recorded no matching attempt within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = worker.onAttempt((attempt) => {
      if (!matches(attempt)) return;
      clearTimeout(timer);
      off();
      resolve(attempt);
    });
  });
}

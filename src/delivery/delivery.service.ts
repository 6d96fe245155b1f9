import type { AppContext } from '../context.js';
import { newId } from '../shared/ids.js';
import { nextAttemptAt } from './retry-schedule.js';
import { secretsAt, type SigningSecrets } from './endpoint-secret.js';
import { webhookHeaders } from './signature.js';
import { throttlePauseMs } from './throttle.js';
import type { DeliveryOutcomeRow, FinishedAttempt, SendOutcome, WebhookSender } from './types.js';
import type { DeliveryStatus, WebhookDeliveryAttemptTable } from './webhook.tables.js';

/**
 * One signed POST (Standard Webhooks headers: webhook-id, webhook-timestamp, webhook-signature),
 * signed with the current secret and, while a rotation's window lasts at the attempt's time (the
 * injected clock), with the previous one too.
 */
export async function sendSigned(
  ctx: Pick<AppContext, 'clock'>,
  sender: WebhookSender,
  url: string,
  secrets: SigningSecrets,
  eventId: string,
  body: string,
): Promise<{ attemptedAt: Date; outcome: SendOutcome }> {
  const attemptedAt = ctx.clock();
  const timestamp = Math.floor(attemptedAt.getTime() / 1000);
  const headers = webhookHeaders(secretsAt(secrets, attemptedAt.getTime()), eventId, timestamp, body);
  const outcome = await sender.send({ url, headers, body });
  return { attemptedAt, outcome };
}

/** The outcome of an attempt that was not sent: the endpoint's secret cannot be decrypted. */
export function notSent(reason: string): SendOutcome {
  return { kind: 'refused', ok: false, statusCode: null, durationMs: 0, responseBody: null, error: reason, retryAfter: null };
}

/** What recording an attempt writes, decided before the write (pure but for ids). */
export interface PlannedOutcome {
  delivery: DeliveryOutcomeRow;
  attempt: WebhookDeliveryAttemptTable;
  /** The receiver throttled: hold its endpoint until then. */
  pausedUntil: Date | null;
}

/**
 * Moves a delivery on after an attempt: delivered on a 2xx; otherwise the next attempt comes from
 * the retry schedule (with jitter), or the delivery has failed once the schedule is exhausted. A
 * throttle (429, or 503 with Retry-After: throttle.ts) holds the endpoint for what the receiver
 * asked, capped, and this delivery's next attempt is never earlier than that nor than the
 * schedule's next step.
 */
export function planOutcome(schedule: readonly number[], finished: FinishedAttempt, random: number): PlannedOutcome {
  const { delivery, attemptedAt, outcome } = finished;
  const at = attemptedAt.toISOString();
  const attemptNumber = delivery.attempt_count + 1;
  const pauseMs = outcome.ok ? null : throttlePauseMs(outcome.statusCode, outcome.retryAfter, attemptedAt);
  const pausedUntil = pauseMs === null ? null : new Date(attemptedAt.getTime() + pauseMs);
  let next: Date | null = null;
  if (!outcome.ok) {
    next = nextAttemptAt(schedule, attemptNumber, attemptedAt, random);
    if (next && pausedUntil && pausedUntil > next) next = pausedUntil;
  }
  const status: DeliveryStatus = outcome.ok ? 'delivered' : next ? 'pending' : 'failed';
  return {
    delivery: {
      id: delivery.id,
      claim_token: delivery.token,
      status,
      attempt_count: attemptNumber,
      next_attempt_at: next?.toISOString() ?? null,
      last_attempt_at: at,
      last_response_status: outcome.statusCode,
      last_error: outcome.ok ? null : (outcome.error ?? `HTTP ${outcome.statusCode ?? ''}`.trim()),
      delivered_at: outcome.ok ? at : null,
      updated_at: at,
    },
    attempt: {
      id: newId(),
      delivery_id: delivery.id,
      endpoint_id: delivery.endpoint_id,
      event_id: delivery.event_id,
      attempt_number: attemptNumber,
      attempted_at: at,
      duration_ms: outcome.durationMs,
      response_status: outcome.statusCode,
      response_body: outcome.responseBody,
      error: outcome.error,
      throttled: pausedUntil === null ? 0 : 1,
    },
    pausedUntil,
  };
}

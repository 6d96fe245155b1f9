import { randomUUID } from 'node:crypto';
import type { AppContext, KeyringContext, ServiceContext } from '../context.js';
import { SecretUnavailableError } from '../secrets/keyring.js';
import type { SendOutcome, WebhookSender } from './http-sender.js';
import * as deliveries from './delivery.repository.js';
import { openEndpointSecret, type StoredSecret } from './endpoint-secret.js';
import { DISABLE_AFTER_MS, nextAttemptAt } from './retry-schedule.js';
import { webhookHeaders } from './signature.js';
import * as endpoints from './webhook.repository.js';
import type { DeliveryStatus } from './webhook.tables.js';

/** A delivery a worker holds the lease on, with what it needs to send it. */
export interface ClaimedDelivery extends deliveries.DueDelivery {
  url: string;
  /** The endpoint's secret as stored (encrypted): decrypted only to sign the attempt. */
  secret: StoredSecret;
  /** The lease's token: the result is recorded only while the lease is still ours. */
  token: string;
}

export interface AttemptResult {
  deliveryId: string;
  attemptNumber: number;
  outcome: SendOutcome;
  /** The delivery's status after this attempt (null when the lease had been lost). */
  status: DeliveryStatus | null;
  nextAttemptAt: string | null;
  endpointDisabled: boolean;
  /** Set when the attempt was not sent because the endpoint's secret cannot be decrypted (the reason). */
  secretUnavailable?: string;
}

/**
 * Sends one attempt of a delivery, signed for this attempt's time, with the body bytes stored at
 * fan-out, then records it. Never throws for the partner's failures: they are the outcome.
 * `onSent` sees the outcome before it is recorded (metrics count attempts even when recording fails).
 */
export async function attemptDelivery(
  ctx: ServiceContext & KeyringContext,
  sender: WebhookSender,
  claimed: ClaimedDelivery,
  onSent: (outcome: SendOutcome) => void = () => undefined,
): Promise<AttemptResult> {
  let secret: string;
  try {
    secret = openEndpointSecret(ctx.keyring, claimed.secret);
  } catch (error) {
    if (!(error instanceof SecretUnavailableError)) throw error;
    // Not sent: recorded as a failed attempt with the reason (the operator's log shows it) and retried
    // on the schedule, so restoring the key lets it through; not held against the partner's endpoint.
    const reason = `not sent: ${error.message}`;
    const outcome: SendOutcome = {
      kind: 'refused',
      ok: false,
      statusCode: null,
      durationMs: 0,
      responseBody: null,
      error: reason,
    };
    onSent(outcome);
    const result = await recordOutcome(ctx, claimed, ctx.clock(), outcome, Math.random, { endpointAtFault: false });
    return { ...result, secretUnavailable: reason };
  }
  const { attemptedAt, outcome } = await sendSigned(ctx, sender, claimed.url, secret, claimed.event_id, claimed.body);
  onSent(outcome);
  return recordOutcome(ctx, claimed, attemptedAt, outcome);
}

/** One signed POST (Standard Webhooks headers: webhook-id, webhook-timestamp, webhook-signature). */
export async function sendSigned(
  ctx: Pick<AppContext, 'clock'>,
  sender: WebhookSender,
  url: string,
  secret: string,
  eventId: string,
  body: string,
): Promise<{ attemptedAt: Date; outcome: SendOutcome }> {
  const attemptedAt = ctx.clock();
  const timestamp = Math.floor(attemptedAt.getTime() / 1000);
  const outcome = await sender.send({ url, headers: webhookHeaders(secret, eventId, timestamp, body), body });
  return { attemptedAt, outcome };
}

/**
 * Records an attempt and moves the delivery on: delivered on a 2xx; otherwise the next attempt is
 * scheduled from the retry schedule (with jitter), or the delivery has failed once it is exhausted.
 * A failure also extends the endpoint's failure streak: an endpoint failing for DISABLE_AFTER_MS,
 * or answering 410 Gone, is disabled and its pending deliveries fail.
 */
export async function recordOutcome(
  ctx: ServiceContext,
  claimed: ClaimedDelivery,
  attemptedAtDate: Date,
  outcome: SendOutcome,
  random: () => number = Math.random,
  /** `endpointAtFault: false`: a failure on our side, which does not extend the endpoint's failure streak. */
  options: { endpointAtFault?: boolean } = {},
): Promise<AttemptResult> {
  const attemptedAt = attemptedAtDate.toISOString();
  return ctx.db.transaction().execute(async (trx) => {
    const row = await deliveries.findDeliveryForUpdate(trx, claimed.id, ctx.dialect);
    if (!row || row.claim_token !== claimed.token) {
      // Our lease ran out and another worker took the delivery over: its attempt is the one recorded.
      return {
        deliveryId: claimed.id,
        attemptNumber: claimed.attempt_count + 1,
        outcome,
        status: null,
        nextAttemptAt: null,
        endpointDisabled: false,
      };
    }
    const attemptNumber = row.attempt_count + 1;
    await deliveries.insertAttempt(trx, {
      id: randomUUID(),
      delivery_id: row.id,
      endpoint_id: row.endpoint_id,
      event_id: row.event_id,
      attempt_number: attemptNumber,
      attempted_at: attemptedAt,
      duration_ms: outcome.durationMs,
      response_status: outcome.statusCode,
      response_body: outcome.responseBody,
      error: outcome.error,
    });
    const common = {
      attempt_count: attemptNumber,
      claimed_until: null,
      claim_token: null,
      last_attempt_at: attemptedAt,
      last_response_status: outcome.statusCode,
      last_error: outcome.ok ? null : (outcome.error ?? `HTTP ${outcome.statusCode ?? ''}`.trim()),
      updated_at: attemptedAt,
    };

    if (outcome.ok) {
      // Delivered is the truth even if the delivery was cancelled while this attempt was in flight.
      await deliveries.updateDelivery(trx, row.id, {
        ...common,
        status: 'delivered',
        next_attempt_at: null,
        delivered_at: attemptedAt,
      });
      await endpoints.markEndpointHealthy(trx, row.endpoint_id);
      return { deliveryId: row.id, attemptNumber, outcome, status: 'delivered', nextAttemptAt: null, endpointDisabled: false };
    }

    const next =
      row.status === 'pending'
        ? nextAttemptAt(ctx.config.webhookRetryScheduleMs, attemptNumber, attemptedAtDate, random())
        : null;
    const status: DeliveryStatus = row.status !== 'pending' ? row.status : next ? 'pending' : 'failed';
    await deliveries.updateDelivery(trx, row.id, { ...common, status, next_attempt_at: next?.toISOString() ?? null });

    if (options.endpointAtFault === false) {
      return {
        deliveryId: row.id,
        attemptNumber,
        outcome,
        status,
        nextAttemptAt: status === 'pending' ? (next?.toISOString() ?? null) : null,
        endpointDisabled: false,
      };
    }
    const failingSince = await endpoints.markEndpointFailing(trx, row.endpoint_id, attemptedAt);
    const reason =
      outcome.statusCode === 410
        ? 'the endpoint answered 410 Gone'
        : failingSince !== null && attemptedAtDate.getTime() - Date.parse(failingSince) >= DISABLE_AFTER_MS
          ? `every attempt has failed since ${failingSince}`
          : null;
    let endpointDisabled = false;
    if (reason !== null && (await endpoints.disableEndpoint(trx, row.endpoint_id, attemptedAt, reason))) {
      endpointDisabled = true;
      await deliveries.closePendingOfEndpoint(trx, row.endpoint_id, 'failed', attemptedAt, `endpoint disabled: ${reason}`);
    }
    const finalStatus: DeliveryStatus = endpointDisabled && status === 'pending' ? 'failed' : status;
    return {
      deliveryId: row.id,
      attemptNumber,
      outcome,
      status: finalStatus,
      nextAttemptAt: finalStatus === 'pending' ? (next?.toISOString() ?? null) : null,
      endpointDisabled,
    };
  });
}

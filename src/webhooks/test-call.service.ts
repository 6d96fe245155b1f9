import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import { assertClinicScope } from '../clinics/clinic.service.js';
import { isoNow } from '../clock.js';
import type { KeyringContext, ServiceContext } from '../context.js';
import { TEST_EVENT_TYPE } from '../events/event-types.js';
import { eventBody } from '../events/event-body.js';
import type { PartnerIdentity } from '../partner-identity.js';
import { newId } from '../shared/ids.js';
import * as deliveries from '../delivery/delivery.repository.js';
import { sendSigned } from '../delivery/delivery.service.js';
import { openSigningSecrets } from '../delivery/endpoint-secret.js';
import { createHttpSender } from '../delivery/http-sender.js';
import type { WebhookSender } from '../delivery/types.js';
import { urlPolicyOf } from '../delivery/url-safety.js';
import * as repo from './webhook.repository.js';
import type { TestCallOutcomeView } from './webhook.schemas.js';
import { endpointNotFound } from './webhook.service.js';

/**
 * Sends a `webhook.test` event to the endpoint now and answers with the outcome; a failure of the
 * partner's endpoint is an outcome, not an error. The answer carries the status, the time and the
 * kind of failure only, never the receiver's body, headers or error text (the operator's delivery log
 * keeps them). Recorded in the delivery log, never retried, and
 * it does not count toward the endpoint's failure streak. The one place a request waits for a
 * delivery (bounded by the attempt timeout).
 */
export async function testEndpoint(
  ctx: ServiceContext & KeyringContext,
  identity: PartnerIdentity,
  input: { clinic_id: string; webhook_id: string },
  audit: AuditContext,
  sender?: WebhookSender,
): Promise<TestCallOutcomeView> {
  await assertClinicScope(ctx, identity, input.clinic_id, 'clinic_id');
  const endpoint = await repo.findLiveEndpoint(ctx.db, input.clinic_id, input.webhook_id);
  if (!endpoint) throw endpointNotFound(input.webhook_id);
  // A secret the server cannot decrypt (its key is not configured) is our fault: a 500, logged with the reason.
  const secrets = openSigningSecrets(ctx.keyring, endpoint, ctx.clock().getTime());

  const eventId = newId();
  const body = JSON.stringify(
    eventBody(TEST_EVENT_TYPE, isoNow(ctx.clock), {
      webhook_id: endpoint.id,
      clinic_id: endpoint.clinic_id,
      message: 'This is a test event sent from the webhook test call.',
    }),
  );
  const http = sender ?? createHttpSender({ policy: urlPolicyOf(ctx.config), timeoutMs: ctx.config.webhookTimeoutMs });
  let result: Awaited<ReturnType<typeof sendSigned>>;
  try {
    result = await sendSigned(ctx, http, endpoint.url, secrets, eventId, body);
  } finally {
    if (!sender) await http.close();
  }
  const { attemptedAt, outcome } = result;
  const at = attemptedAt.toISOString();
  const deliveryId = newId();
  await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    await deliveries.insertDelivery(trx, {
      id: deliveryId,
      event_id: eventId,
      event_type: TEST_EVENT_TYPE,
      clinic_id: endpoint.clinic_id,
      endpoint_id: endpoint.id,
      body,
      status: outcome.ok ? 'delivered' : 'failed',
      attempt_count: 1,
      next_attempt_at: null,
      claimed_until: null,
      claim_token: null,
      last_attempt_at: at,
      last_response_status: outcome.statusCode,
      last_error: outcome.ok ? null : (outcome.error ?? `HTTP ${outcome.statusCode ?? ''}`.trim()),
      delivered_at: outcome.ok ? at : null,
      created_at: at,
      updated_at: at,
    });
    await deliveries.insertAttempt(trx, {
      id: newId(),
      delivery_id: deliveryId,
      endpoint_id: endpoint.id,
      event_id: eventId,
      attempt_number: 1,
      attempted_at: at,
      duration_ms: outcome.durationMs,
      response_status: outcome.statusCode,
      response_body: outcome.responseBody,
      error: outcome.error,
      // Not a throttle even on a 429: a test call is not retried, and never holds the endpoint.
      throttled: 0,
    });
    change.audit('test', { type: 'webhook_endpoint', id: endpoint.id, clinicId: endpoint.clinic_id });
  });
  return {
    webhook_id: endpoint.id,
    delivery_id: deliveryId,
    event_id: eventId,
    event_type: TEST_EVENT_TYPE,
    delivered: outcome.ok,
    status_code: outcome.statusCode,
    attempted_at: at,
    duration_ms: outcome.durationMs,
    // The kind only: the error text can quote the receiver (TLS names, addresses) and its body is
    // never returned, so that the test call cannot be used to read internal services.
    error: outcome.kind === 'success' || outcome.kind === 'http_error' ? null : outcome.kind,
  };
}

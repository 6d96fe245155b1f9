import { notFoundIn } from '../audit/denied-access.js';
import type { ServiceContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import { assertClinicScope } from '../clinics/clinic.service.js';
import type { Trx } from '../db/database.js';
import { conflict, fieldError } from '../errors.js';
import { TEST_EVENT_TYPE } from '../events/event-types.js';
import type { PartnerIdentity } from '../partner-identity.js';
import * as deliveries from '../delivery/delivery.repository.js';
import * as queue from '../delivery/queue.repository.js';
import * as repo from './webhook.repository.js';
import type { RecoveredView, PartnerRecoverEndpointBody } from './webhook.schemas.js';
import type { WebhookEndpointTable } from '../delivery/webhook.tables.js';

/**
 * Recovery after an outage: every failed or waiting delivery of one endpoint, created since `since`,
 * is made due now, in one statement, so that a receiver that is up again gets everything within
 * moments instead of at the next retries (minutes to hours away) or one operator retry per delivery.
 * See docs/webhooks.md, "Recovering after an outage".
 */

const HOUR = 60 * 60 * 1000;
/** How far back a recovery reaches by default. */
export const RECOVERY_DEFAULT_MS = 24 * HOUR;
/** How far back a recovery may reach: bounds the work of one call (a week of one endpoint's deliveries). */
export const RECOVERY_MAX_MS = 7 * 24 * HOUR;

/**
 * The lower bound of a recovery, as stored timestamps are written (ISO UTC with milliseconds).
 * An older `since` is refused rather than clamped: the caller would otherwise believe that
 * deliveries older than 7 days were recovered.
 */
export function recoverySince(since: string | undefined, now: Date): string {
  if (since === undefined) return new Date(now.getTime() - RECOVERY_DEFAULT_MS).toISOString();
  const at = Date.parse(since);
  if (Number.isNaN(at)) throw fieldError('since', 'must be an ISO 8601 date-time');
  if (at > now.getTime()) throw fieldError('since', 'must not be in the future');
  if (at < now.getTime() - RECOVERY_MAX_MS) {
    throw fieldError('since', 'must be at most 7 days ago (older deliveries cannot be recovered in one call)');
  }
  return new Date(at).toISOString();
}

/** The operator's recovery of any clinic's endpoint. */
export async function recoverEndpointForOperator(
  ctx: ServiceContext,
  endpointId: string,
  since: string | undefined,
  audit: AuditContext,
): Promise<RecoveredView> {
  return recover(ctx, endpointId, since, audit, (trx) => repo.findEndpointById(trx, endpointId), {
    notFound: 'Webhook endpoint not found',
    disabled: `This webhook endpoint is disabled; re-enable it first (POST /api/admin/webhook-endpoints/${endpointId}/enable?redeliver_failed=true also queues its failed deliveries)`,
  });
}

/**
 * A partner's recovery of one of its own endpoints: the clinic rule as on the other webhook calls
 * (another clinic's id: 403), and another clinic's endpoint is not found (404), like an unknown one.
 */
export async function recoverEndpointForPartner(
  ctx: ServiceContext,
  identity: PartnerIdentity,
  input: PartnerRecoverEndpointBody,
  audit: AuditContext,
): Promise<RecoveredView> {
  await assertClinicScope(ctx, identity, input.clinic_id, 'clinic_id');
  return recover(
    ctx,
    input.webhook_id,
    input.since,
    audit,
    (trx) => repo.findLiveEndpoint(trx, input.clinic_id, input.webhook_id),
    {
      notFound: 'Webhook not found',
      disabled:
        'This webhook endpoint is disabled; fix it, check it with POST /api/external/webhook/test, then ask the pharmacy to re-enable it',
    },
  );
}

async function recover(
  ctx: ServiceContext,
  endpointId: string,
  since: string | undefined,
  audit: AuditContext,
  findEndpoint: (trx: Trx) => Promise<WebhookEndpointTable | undefined>,
  messages: { notFound: string; disabled: string },
): Promise<RecoveredView> {
  const nowDate = ctx.clock();
  const from = recoverySince(since, nowDate);
  const now = nowDate.toISOString();
  return runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const endpoint = await findEndpoint(trx);
    if (!endpoint || endpoint.deleted_at !== null)
      throw notFoundIn({ type: 'webhook_endpoint', id: endpointId }, messages.notFound);
    // Sending to a disabled endpoint would only fail its deliveries again (the worker skips it):
    // re-enabling is the operator's decision, made on its own route.
    if (endpoint.status !== 'active') throw conflict(messages.disabled);
    await queue.lockEndpoints(trx, ctx.dialect, [endpoint.id]);
    const scheduled = await deliveries.scheduleRecovery(trx, {
      endpointId: endpoint.id,
      since: from,
      now,
      excludeEventType: TEST_EVENT_TYPE,
    });
    if (scheduled > 0) await queue.lowerNextDue(trx, [endpoint.id], now);
    change.audit('retry', { type: 'webhook_endpoint', id: endpoint.id, clinicId: endpoint.clinic_id });
    if (scheduled > 0) change.wakeWorkers();
    return { scheduled };
  });
}

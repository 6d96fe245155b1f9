import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import { isoNow } from '../clock.js';
import type { ServiceContext } from '../context.js';
import * as deliveries from '../delivery/delivery.repository.js';
import { disableEndpoint } from '../delivery/endpoints.repository.js';
import { lockEndpoints } from '../delivery/queue.repository.js';
import * as repo from './webhook.repository.js';
import { endpointNotFound } from './webhook.service.js';
import type { WebhookEndpointTable } from '../delivery/webhook.tables.js';

/**
 * Disables a live endpoint of the clinic by the partner's own decision, as the delivery engine does
 * after 5 days of failures: nothing more is sent to it, its pending deliveries are marked failed (a
 * recovery or a resend after enabling sends them again), and new events are not queued for it. An
 * endpoint disabled already is answered as it is. Audited as an `update` of the endpoint.
 */
export async function disableEndpointOfClinic(
  ctx: ServiceContext,
  clinicId: string,
  webhookId: string,
  reason: string,
  audit: AuditContext,
): Promise<WebhookEndpointTable> {
  return runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const endpoint = await repo.findLiveEndpoint(trx, clinicId, webhookId);
    if (!endpoint) throw endpointNotFound(webhookId);
    if (endpoint.status !== 'active') return endpoint;
    // The endpoint's row before its deliveries: the lock order of the delivery queue (queue.repository.ts).
    await lockEndpoints(trx, ctx.dialect, [endpoint.id]);
    const now = isoNow(ctx.clock);
    if (!(await disableEndpoint(trx, endpoint.id, now, reason))) return endpoint;
    await deliveries.closePendingOfEndpoint(trx, endpoint.id, 'failed', now, `endpoint disabled: ${reason}`);
    change.audit('update', { type: 'webhook_endpoint', id: endpoint.id, clinicId: endpoint.clinic_id });
    return { ...endpoint, status: 'disabled', disabled_at: now, disabled_reason: reason };
  });
}

import type { AuditContext } from '../audit/audit-actor.js';
import { notFoundIn } from '../audit/denied-access.js';
import { runChange } from '../changes/run-change.js';
import type { KeyringContext, ServiceContext } from '../context.js';
import { fieldError } from '../errors.js';
import { PREVIOUS_VALID_HOURS, sealEndpointSecret } from '../delivery/endpoint-secret.js';
import { generateSecret } from '../delivery/signature.js';
import * as repo from './webhook.repository.js';
import type { WebhookEndpointTable } from '../delivery/webhook.tables.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Rotates an endpoint's signing secret without a gap: a new secret becomes current (encrypted like
 * the one given at registration) and the current one becomes the previous one, which keeps signing
 * every attempt beside the new one for `previousValidHours` (default 24; 0 drops it at once), so the
 * partner can switch its receivers over at its own pace. A previous secret from an earlier rotation
 * is dropped. One statement in one change, audited as an `update` of the endpoint. Scoped to the
 * clinic: another clinic's endpoint, or a deleted one, is not found. Returns the endpoint as changed
 * and the new secret (shown to the caller once, never stored in plaintext).
 * @see https://www.standardwebhooks.com/ (several signatures in `webhook-signature` during a rotation)
 */
export async function rotateEndpointSecret(
  ctx: ServiceContext & KeyringContext,
  clinicId: string,
  webhookId: string,
  previousValidHours: number | undefined,
  audit: AuditContext,
): Promise<{ endpoint: WebhookEndpointTable; secret: string }> {
  const hours = previousValidHours ?? PREVIOUS_VALID_HOURS.default;
  if (!Number.isInteger(hours) || hours < PREVIOUS_VALID_HOURS.min || hours > PREVIOUS_VALID_HOURS.max) {
    throw fieldError(
      'previous_valid_hours',
      `must be a whole number from ${PREVIOUS_VALID_HOURS.min} to ${PREVIOUS_VALID_HOURS.max}`,
    );
  }
  const secret = generateSecret();
  const next = sealEndpointSecret(ctx.keyring, webhookId, secret);
  const until = hours === 0 ? null : new Date(ctx.clock().getTime() + hours * HOUR_MS).toISOString();
  const endpoint = await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const row = await repo.rotateSecret(trx, clinicId, webhookId, next, until);
    if (!row) throw notFoundIn({ type: 'webhook_endpoint', id: webhookId }, 'Webhook not found');
    change.audit('update', { type: 'webhook_endpoint', id: row.id, clinicId: row.clinic_id });
    return row;
  });
  return { endpoint, secret };
}

/** Until when the previous secret still signs (ISO-8601 UTC), or null when it no longer does (or there is none). */
export function previousSecretExpiresAt(row: Pick<WebhookEndpointTable, 'previous_secret_expires_at'>, now: Date): string | null {
  const at = row.previous_secret_expires_at;
  return at !== null && Date.parse(at) > now.getTime() ? at : null;
}

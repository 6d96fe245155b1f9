import { notFoundIn } from '../audit/denied-access.js';
import { newId } from '../shared/ids.js';
import { assertClinicScope } from '../clinics/clinic.service.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { AuditedReadContext, KeyringContext, ServiceContext } from '../context.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import { constraintViolation } from '../db/constraints.js';
import { isoNow } from '../clock.js';
import { fieldError, validationError } from '../errors.js';
import * as deliveries from '../delivery/delivery.repository.js';
import { MAX_IN_FLIGHT, type EndpointLimits } from '../delivery/endpoint-limits.js';
import { sealEndpointSecret } from '../delivery/endpoint-secret.js';
import { checkHostIsPublic, checkUrlForm, urlPolicyOf, type ResolveAll } from '../delivery/url-safety.js';
import { generateSecret } from '../delivery/signature.js';
import * as repo from './webhook.repository.js';
import { eventTypesOf, normalizeEventTypes, storedEventTypes } from '../events/event-type-filter.js';
import type { PartnerEndpointView } from './webhook.schemas.js';
import type { WebhookEndpointTable } from '../delivery/webhook.tables.js';

/** Endpoints a clinic may have at once (deleted ones do not count). */
export const MAX_ENDPOINTS_PER_CLINIC = 10;

/**
 * Registers an endpoint for the clinic and returns its signing secret, which is shown only here.
 * The URL is checked for form (https in production) and for SSRF (its host must not be or resolve to
 * an internal address) unless the policy allows internal targets (see `urlPolicyOf`). Limits not
 * given take their defaults (MAX_IN_FLIGHT.default in flight, no per-second limit).
 */
export async function registerEndpointForPartner(
  ctx: ServiceContext & KeyringContext,
  identity: PartnerIdentity,
  input: { clinic_id: string; webhook_url: string } & EndpointLimits,
  audit: AuditContext,
  resolve?: ResolveAll,
): Promise<{ webhook_id: string; secret: string }> {
  await assertClinicScope(ctx, identity, input.clinic_id, 'clinic_id');
  const { endpoint, secret } = await createEndpoint(ctx, input.clinic_id, input, audit, { resolve });
  return { webhook_id: endpoint.id, secret };
}

/**
 * `registerWebhook` for a clinic already known to be the caller's (the partner API, the portal): the
 * same URL checks and rules (at most MAX_ENDPOINTS_PER_CLINIC, one URL once), the row created and the
 * secret. `urlField` names the URL in error details, as the caller's body does.
 */
export async function createEndpoint(
  ctx: ServiceContext & KeyringContext,
  clinicId: string,
  input: { webhook_url: string } & EndpointLimits,
  audit: AuditContext,
  options: { resolve?: ResolveAll | undefined; urlField?: string } = {},
): Promise<{ endpoint: WebhookEndpointTable; secret: string }> {
  const urlField = options.urlField ?? 'webhook_url';
  const eventTypes = normalizeEventTypes(input.event_types) ?? null;
  const policy = urlPolicyOf(ctx.config);
  const form = checkUrlForm(input.webhook_url, policy);
  if ('problem' in form) throw fieldError(urlField, form.problem);
  const hostProblem = await checkHostIsPublic(form.url.hostname, policy, options.resolve);
  if (hostProblem) throw fieldError(urlField, hostProblem);
  const duplicateUrl = () => fieldError(urlField, 'is already registered for this clinic');

  const id = newId();
  const secret = generateSecret();
  const row: WebhookEndpointTable = {
    id,
    clinic_id: clinicId,
    url: form.url.href,
    // Stored encrypted; the plaintext leaves the server only in this answer.
    ...sealEndpointSecret(ctx.keyring, id, secret),
    previous_secret: null,
    previous_secret_key_id: null,
    previous_secret_expires_at: null,
    status: 'active',
    failing_since: null,
    disabled_at: null,
    disabled_reason: null,
    created_at: isoNow(ctx.clock),
    deleted_at: null,
    max_in_flight: input.max_in_flight ?? MAX_IN_FLIGHT.default,
    max_per_second: input.max_per_second ?? null,
    event_types: storedEventTypes(eventTypes),
    // The delivery engine's own state: nothing pending, not held, not owned by a worker.
    next_due_at: null,
    paused_until: null,
    lease_token: null,
    leased_until: null,
  };
  try {
    await runChange(ctx, audit, async (change) => {
      const trx = await change.transaction();
      await repo.lockClinicEndpoints(trx, row.clinic_id, ctx.dialect);
      if (await repo.findLiveEndpointByUrl(trx, row.clinic_id, row.url)) throw duplicateUrl();
      if ((await repo.countLiveEndpoints(trx, row.clinic_id)) >= MAX_ENDPOINTS_PER_CLINIC) {
        throw validationError(
          `A clinic can register at most ${MAX_ENDPOINTS_PER_CLINIC} webhook endpoints; delete one before adding another`,
          { [urlField]: `clinic already has ${MAX_ENDPOINTS_PER_CLINIC} webhook endpoints` },
        );
      }
      await repo.insertEndpoint(trx, row);
      change.audit('create', { type: 'webhook_endpoint', id: row.id, clinicId: row.clinic_id });
    });
  } catch (error) {
    if (constraintViolation(error) === 'unique') throw duplicateUrl();
    throw error;
  }
  return { endpoint: row, secret };
}

/** Deletes an endpoint; its pending deliveries are cancelled in the same transaction. */
export async function deleteEndpoint(
  ctx: ServiceContext,
  identity: PartnerIdentity,
  input: { clinic_id: string; webhook_id: string },
  audit: AuditContext,
): Promise<{ webhook_id: string }> {
  await assertClinicScope(ctx, identity, input.clinic_id, 'clinic_id');
  await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const now = isoNow(ctx.clock);
    if (!(await repo.softDeleteEndpoint(trx, input.clinic_id, input.webhook_id, now))) throw endpointNotFound(input.webhook_id);
    await deliveries.closePendingOfEndpoint(trx, input.webhook_id, 'cancelled', now, 'endpoint deleted');
    change.audit('delete', { type: 'webhook_endpoint', id: input.webhook_id, clinicId: input.clinic_id });
  });
  return { webhook_id: input.webhook_id };
}

/**
 * Changes the partner's limits of one of its endpoints (a disabled one too): the fields given are
 * set, the others kept; `max_per_second: null` removes that limit. The answer is the endpoint as
 * changed (part of the change: not audited as a read). An unknown, deleted or other clinic's
 * endpoint is not found.
 */
export async function updateEndpoint(
  ctx: ServiceContext,
  identity: PartnerIdentity,
  input: { clinic_id: string; webhook_id: string },
  limits: EndpointLimits,
  audit: AuditContext,
): Promise<PartnerEndpointView> {
  if (limits.max_in_flight === undefined && limits.max_per_second === undefined && limits.event_types === undefined) {
    throw fieldError('body', 'must change at least one of max_in_flight, max_per_second, event_types');
  }
  await assertClinicScope(ctx, identity, input.clinic_id, 'clinic_id');
  const row = await changeEndpointLimits(ctx, input.clinic_id, input.webhook_id, limits, audit);
  return toEndpointView(row, ctx.clock());
}

/** `updateWebhook` for a clinic already known to be the caller's: the row as changed (404 when there is none). */
export async function changeEndpointLimits(
  ctx: ServiceContext,
  clinicId: string,
  webhookId: string,
  limits: EndpointLimits,
  audit: AuditContext,
): Promise<WebhookEndpointTable> {
  const eventTypes = normalizeEventTypes(limits.event_types);
  return runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const updated = await repo.updateEndpointLimits(trx, clinicId, webhookId, { ...limits, event_types: eventTypes });
    if (!updated) throw endpointNotFound(webhookId);
    change.audit('update', { type: 'webhook_endpoint', id: updated.id, clinicId: updated.clinic_id });
    return updated;
  });
}

/** The clinic's endpoints (never their secrets); each one listed is audited as read. */
export async function listEndpointsForPartner(
  ctx: ServiceContext & AuditedReadContext,
  identity: PartnerIdentity,
  clinicId: string | undefined,
  audit: AuditContext,
): Promise<PartnerEndpointView[]> {
  if (clinicId !== undefined) await assertClinicScope(ctx, identity, clinicId, 'clinic_id');
  const rows = await listEndpointsOfClinic(ctx, clinicId ?? identity.clinicId, audit);
  const now = ctx.clock();
  return rows.map((row) => toEndpointView(row, now));
}

/** The live endpoints of a clinic already known to be the caller's, oldest first; each one is audited as read. */
export async function listEndpointsOfClinic(
  ctx: AuditedReadContext,
  clinicId: string,
  audit: AuditContext,
): Promise<WebhookEndpointTable[]> {
  const rows = await repo.listLiveEndpoints(ctx.db, clinicId);
  await ctx.audit.recordReads(
    audit,
    rows.map((row) => ({ type: 'webhook_endpoint', id: row.id, clinicId: row.clinic_id })),
  );
  return rows;
}

export const endpointNotFound = (webhookId: string) =>
  notFoundIn({ type: 'webhook_endpoint', id: webhookId }, 'Webhook not found');

/**
 * An endpoint as partners and the operator see it (never its secret, nor the delivery engine's lease).
 * A pause that has ended (`paused_until` at or before `now`) reads null: nothing is held any more.
 */
export function toEndpointView(row: WebhookEndpointTable, now: Date): PartnerEndpointView {
  return {
    webhook_id: row.id,
    clinic_id: row.clinic_id,
    webhook_url: row.url,
    status: row.status,
    disabled_at: row.disabled_at,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    max_in_flight: row.max_in_flight,
    max_per_second: row.max_per_second,
    event_types: eventTypesOf(row.event_types),
    paused_until: row.paused_until !== null && Date.parse(row.paused_until) > now.getTime() ? row.paused_until : null,
  };
}

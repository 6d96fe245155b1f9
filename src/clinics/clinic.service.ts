import { newId } from '../shared/ids.js';
import type { Environment } from '../config.js';
import type { ReadContext, ServiceContext } from '../context.js';
import type { PartnerIdentity } from '../partner-identity.js';
import { isoNow } from '../clock.js';
import { AppError, forbidden, notFound, unauthorized } from '../errors.js';
import { displayPrefix, environmentOfKey, generateApiKey, hashApiKey, hashesEqual } from './api-key.js';
import * as repo from './clinic.repository.js';
import type { ApiKeySummaryView, ClinicView, IssuedApiKeyView, RevokedApiKeyView } from './clinic.schemas.js';

export async function createClinic(ctx: ServiceContext, input: { name: string; free_shipping?: boolean }): Promise<ClinicView> {
  const clinic = {
    id: newId(),
    name: input.name.trim(),
    free_shipping: input.free_shipping ? 1 : 0,
    created_at: isoNow(ctx.clock),
  };
  await repo.insertClinic(ctx.db, clinic);
  return toClinic(clinic);
}

export async function getClinic(ctx: ReadContext, clinicId: string): Promise<ClinicView> {
  const row = await repo.findClinic(ctx.db, clinicId);
  if (!row) throw notFound('Clinic not found');
  return toClinic(row);
}

/** How many clinics exist (a fresh database has none). */
export async function countClinics(ctx: ReadContext): Promise<number> {
  return repo.countClinics(ctx.db);
}

export async function listClinics(ctx: ReadContext): Promise<ClinicView[]> {
  return (await repo.listClinics(ctx.db)).map(toClinic);
}

export async function setFreeShipping(ctx: ServiceContext, clinicId: string, freeShipping: boolean): Promise<ClinicView> {
  const updated = await repo.updateFreeShipping(ctx.db, clinicId, freeShipping ? 1 : 0);
  if (!updated) throw notFound('Clinic not found');
  return getClinic(ctx, clinicId);
}

/**
 * Issues a new API key for a clinic. The key is returned once, here; only its hash is stored.
 * `environment` defaults to the server's.
 */
export async function issueApiKey(ctx: ServiceContext, clinicId: string, environment?: Environment): Promise<IssuedApiKeyView> {
  if (!(await repo.clinicExists(ctx.db, clinicId))) throw notFound('Clinic not found');
  const env = environment ?? ctx.config.env;
  const key = generateApiKey(env);
  const row = {
    id: newId(),
    clinic_id: clinicId,
    environment: env,
    key_hash: hashApiKey(key),
    key_prefix: displayPrefix(key),
    created_at: isoNow(ctx.clock),
    revoked_at: null,
  };
  await repo.insertApiKey(ctx.db, row);
  return {
    api_key_id: row.id,
    api_key: key,
    clinic_id: clinicId,
    environment: env,
    key_prefix: row.key_prefix,
    created_at: row.created_at,
  };
}

/** Revokes a key; the next request made with it is refused. Revoking twice is harmless. */
export async function revokeApiKey(ctx: ServiceContext, apiKeyId: string): Promise<RevokedApiKeyView> {
  const row = await repo.findApiKey(ctx.db, apiKeyId);
  if (!row) throw notFound('API key not found');
  if (row.revoked_at === null) await repo.revokeApiKeyRow(ctx.db, apiKeyId, isoNow(ctx.clock));
  const after = await repo.findApiKey(ctx.db, apiKeyId);
  return { api_key_id: apiKeyId, revoked_at: after?.revoked_at ?? isoNow(ctx.clock) };
}

export async function listApiKeys(ctx: ReadContext, clinicId: string): Promise<ApiKeySummaryView[]> {
  if (!(await repo.clinicExists(ctx.db, clinicId))) throw notFound('Clinic not found');
  const rows = await repo.listApiKeys(ctx.db, clinicId);
  return rows.map((r) => ({
    api_key_id: r.id,
    environment: r.environment,
    key_prefix: r.key_prefix,
    created_at: r.created_at,
    revoked_at: r.revoked_at,
  }));
}

/**
 * Refuses, without looking anything up, a key that cannot be valid here: missing, of no known
 * format, or of the other environment. The same 401s as authenticateApiKey.
 */
export function assertApiKeyForm(ctx: Pick<ServiceContext, 'config'>, key: string | undefined): asserts key is string {
  if (key === undefined || key === '') throw unauthorized('missing x-api-key header');
  const claimed = environmentOfKey(key);
  if (claimed === null || key.length > 200) throw unauthorized('invalid API key');
  if (claimed !== ctx.config.env) {
    throw unauthorized(`this is a ${claimed} key; this server is the ${ctx.config.env} environment`);
  }
}

/**
 * Resolves an `x-api-key` to its clinic. Every refusal is a 401 whose message starts with
 * "Unauthorized" (the spec's Authentication rule 6); the reason is specific enough to act on.
 */
export async function authenticateApiKey(ctx: ServiceContext, key: string | undefined): Promise<PartnerIdentity> {
  assertApiKeyForm(ctx, key);
  const hash = hashApiKey(key);
  const row = await repo.findApiKeyByHash(ctx.db, hash);
  if (!row || !hashesEqual(row.key_hash, hash)) throw unauthorized('invalid API key');
  if (row.revoked_at !== null) throw unauthorized('API key has been revoked');
  if (row.environment !== ctx.config.env) {
    throw unauthorized(`this is a ${row.environment} key; this server is the ${ctx.config.env} environment`);
  }
  return { clinicId: row.clinic_id, apiKeyId: row.id };
}

/**
 * The foundation's clinic rule for a body's `clinic_id` / `assigned_clinic`: an unknown clinic is
 * a 400 saying it was not found; another existing clinic is a 403.
 */
export async function assertClinicScope(
  ctx: ReadContext,
  identity: PartnerIdentity,
  requestedClinicId: string,
  field: string,
): Promise<void> {
  if (requestedClinicId === identity.clinicId) return;
  if (!(await repo.clinicExists(ctx.db, requestedClinicId))) {
    throw new AppError('VALIDATION_ERROR', 400, 'Clinic not found', { [field]: 'clinic not found' });
  }
  throw forbidden(`Forbidden: your API key does not give access to clinic ${requestedClinicId}`);
}

function toClinic(row: { id: string; name: string; free_shipping: number; created_at: string }): ClinicView {
  return { clinic_id: row.id, name: row.name, free_shipping: row.free_shipping === 1, created_at: row.created_at };
}

// Over 250 lines: a clinic and its API keys (issue, roll, revoke, authenticate), whose rules on expiry and scope are one story.
import { newId } from '../shared/ids.js';
import type { Environment } from '../config.js';
import type { AppContext, ReadContext, ServiceContext } from '../context.js';
import type { PartnerIdentity } from '../partner-identity.js';
import type { AuditContext } from '../audit/audit-actor.js';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { runChange } from '../changes/run-change.js';
import { isoNow } from '../clock.js';
import { AppError, conflict, fieldError, forbidden, notFound, unauthorized } from '../errors.js';
import { displayPrefix, environmentOfKey, generateApiKey, hashApiKey, hashesEqual, lastFour } from './api-key.js';
import { apiKeyRateLimitBucket } from '../contracts/rate-limit-buckets.js';
import * as repo from './clinic.repository.js';
import type { ApiKeyTable, ClinicTable } from './clinic.tables.js';
import type { ApiKeySummaryView, ClinicView, IssuedApiKeyView, RevokedApiKeyView, RolledApiKeyView } from './clinic.schemas.js';
import { parseStoredScopes, storedScopes, type Scope } from './scopes.js';

/*
 * Clinics, keys and settings are changed by the pharmacy (the operator API, the command line): each
 * change is one runChange, audited with it, naming who made it. `audit` null is the system itself
 * (the development sandbox, a test's setup), which the trail does not record.
 */

/** Creates a clinic (audited `create` of the clinic). */
export async function createClinic(
  ctx: ServiceContext,
  input: { name: string; free_shipping?: boolean },
  audit: AuditContext | null,
): Promise<ClinicView> {
  const clinic = newClinicRow(input.name, input.free_shipping ?? false, isoNow(ctx.clock));
  await runChange(ctx, audit, (change) => {
    change.write(repo.clinicInsert(change, clinic));
    change.audit?.('create', clinicResource(clinic.id));
  });
  return toClinic(clinic);
}

/** A new clinic's row. */
export function newClinicRow(name: string, freeShipping: boolean, createdAt: string): ClinicTable {
  return { id: newId(), name: name.trim(), free_shipping: freeShipping ? 1 : 0, created_at: createdAt };
}

const clinicResource = (clinicId: string): AuditedResource => ({ type: 'clinic', id: clinicId, clinicId });
const keyResource = (key: Pick<ApiKeyTable, 'id' | 'clinic_id'>): AuditedResource => ({
  type: 'api_key',
  id: key.id,
  clinicId: key.clinic_id,
});

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

/** Turns a clinic's free shipping on or off (audited `update` of the clinic). */
export async function setFreeShipping(
  ctx: ServiceContext,
  clinicId: string,
  freeShipping: boolean,
  audit: AuditContext | null,
): Promise<ClinicView> {
  await runChange(ctx, audit, async (change) => {
    const updated = await repo.updateFreeShipping(await change.transaction(), clinicId, freeShipping ? 1 : 0);
    if (!updated) throw notFound('Clinic not found');
    change.audit?.('update', clinicResource(clinicId));
  });
  return getClinic(ctx, clinicId);
}

/** What a key is issued with besides its environment: scopes (none: full access) and a lifetime (none: no expiry). */
export interface KeyOptions {
  scopes?: readonly Scope[] | undefined;
  expiresInSeconds?: number | undefined;
}

/**
 * Issues a new API key for a clinic. The key is returned once, here; only its hash is stored.
 * `environment` defaults to the server's; a key without `scopes` has full access.
 */
export async function issueApiKey(
  ctx: ServiceContext,
  clinicId: string,
  audit: AuditContext | null,
  environment?: Environment,
  options: KeyOptions = {},
): Promise<IssuedApiKeyView> {
  // The API's schema refuses it first; a caller of the service (the command line) is held to the same rule.
  if (options.scopes?.length === 0) throw fieldError('scopes', 'must have at least 1 item');
  if (!(await repo.clinicExists(ctx.db, clinicId))) throw notFound('Clinic not found');
  const now = ctx.clock();
  const expiresAt = options.expiresInSeconds === undefined ? null : secondsAfter(now, options.expiresInSeconds);
  const { key, row } = newKeyRow(clinicId, environment ?? ctx.config.env, options.scopes ?? null, now.toISOString(), expiresAt);
  await runChange(ctx, audit, (change) => {
    change.write(repo.apiKeyInsert(change, row));
    change.audit?.('create', keyResource(row));
  });
  return issuedView(key, row);
}

/**
 * Rolls a key: issues its successor (same clinic, environment and scopes; no expiry) and makes the
 * old key expire `expiresInSeconds` from now (0: at once), never later than an expiry it already
 * had, so that a partner can deploy the new key while the old one still works. One change: both
 * rows or neither. A revoked or expired key cannot be rolled (409): issue a new key instead.
 */
export async function rollApiKey(
  ctx: ServiceContext,
  apiKeyId: string,
  expiresInSeconds: number,
  audit: AuditContext | null,
): Promise<RolledApiKeyView> {
  // Audited as a `roll` of the old key and the `create` of its successor.
  return runChange(ctx, audit, async (change) => {
    const expiresAt = secondsAfter(new Date(change.at), expiresInSeconds);
    const trx = await change.transaction();
    const old = await repo.expireWorkingApiKey(trx, apiKeyId, change.at, expiresAt);
    if (!old) {
      const row = await repo.findApiKey(trx, apiKeyId);
      if (!row) throw notFound('API key not found');
      throw conflict(
        row.revoked_at !== null
          ? 'API key has been revoked: it cannot be rolled; issue a new key instead'
          : 'API key has expired: it cannot be rolled; issue a new key instead',
      );
    }
    const environment = old.environment as Environment;
    const { key, row } = newKeyRow(old.clinic_id, environment, parseStoredScopes(old.scopes), change.at, null);
    change.write(repo.apiKeyInsert(change, row));
    change.audit?.('roll', keyResource(old));
    change.audit?.('create', keyResource(row));
    return { ...issuedView(key, row), previous_key: { api_key_id: old.id, expires_at: old.expires_at ?? expiresAt } };
  });
}

/**
 * Revokes a key; the next request made with it is refused. Revoking twice is harmless, and only
 * the revocation that took effect is audited (`revoke`).
 */
export async function revokeApiKey(
  ctx: ServiceContext,
  apiKeyId: string,
  audit: AuditContext | null,
): Promise<RevokedApiKeyView> {
  return runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const row = await repo.findApiKey(trx, apiKeyId);
    if (!row) throw notFound('API key not found');
    if (row.revoked_at !== null) return { api_key_id: apiKeyId, revoked_at: row.revoked_at };
    if (await repo.revokeApiKeyRow(trx, apiKeyId, change.at)) change.audit?.('revoke', keyResource(row));
    const after = await repo.findApiKey(trx, apiKeyId);
    return { api_key_id: apiKeyId, revoked_at: after?.revoked_at ?? change.at };
  });
}

export async function listApiKeys(ctx: ReadContext, clinicId: string): Promise<ApiKeySummaryView[]> {
  if (!(await repo.clinicExists(ctx.db, clinicId))) throw notFound('Clinic not found');
  const rows = await repo.listApiKeys(ctx.db, clinicId);
  return rows.map((row) => ({ ...keyView(row), revoked_at: row.revoked_at }));
}

/**
 * One key of a clinic, as the list shows it: another clinic's key is not found (404), exactly as an
 * unknown id, so that a caller scoped to its clinic (the partner portal) learns nothing of others'.
 */
export async function getApiKeyOfClinic(ctx: ReadContext, clinicId: string, apiKeyId: string): Promise<ApiKeySummaryView> {
  const row = await repo.findApiKeyOfClinic(ctx.db, clinicId, apiKeyId);
  if (!row) throw notFound('API key not found');
  return { ...keyView(row), revoked_at: row.revoked_at };
}

/**
 * The rate-limit counters of a clinic's keys that still work here (not revoked, not expired, of this
 * server's environment): the partner portal reads their use of the minute (contracts/rate-limit-buckets.ts).
 */
export async function workingApiKeyBuckets(
  ctx: Pick<ServiceContext, 'db' | 'clock' | 'config'>,
  clinicId: string,
): Promise<{ apiKeyId: string; bucket: string }[]> {
  const now = isoNow(ctx.clock);
  const rows = await repo.listApiKeys(ctx.db, clinicId);
  return rows
    .filter(
      (row) => row.revoked_at === null && (row.expires_at === null || row.expires_at > now) && row.environment === ctx.config.env,
    )
    .map((row) => ({ apiKeyId: row.id, bucket: apiKeyRateLimitBucket(row.key_hash) }));
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
 * `keyHash`: the key's hash when the caller has it already (the guard names its rate-limit bucket by it).
 */
export async function authenticateApiKey(
  ctx: ServiceContext & Pick<AppContext, 'keyUsage'>,
  key: string | undefined,
  keyHash?: string,
): Promise<PartnerIdentity> {
  assertApiKeyForm(ctx, key);
  const hash = keyHash ?? hashApiKey(key);
  const row = await repo.findApiKeyByHash(ctx.db, hash);
  if (!row || !hashesEqual(row.key_hash, hash)) throw unauthorized('invalid API key');
  if (row.revoked_at !== null) throw unauthorized('API key has been revoked');
  // Checked on every request against the row just read: no instance can keep an expired key alive.
  if (row.expires_at !== null && row.expires_at <= isoNow(ctx.clock)) throw unauthorized('API key has expired');
  if (row.environment !== ctx.config.env) {
    throw unauthorized(`this is a ${row.environment} key; this server is the ${ctx.config.env} environment`);
  }
  ctx.keyUsage.record(row.id, row.last_used_at);
  return { clinicId: row.clinic_id, apiKeyId: row.id, scopes: parseStoredScopes(row.scopes) };
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
  const credential = identity.oauthClientId === undefined ? 'API key' : 'access token';
  throw forbidden(`Forbidden: your ${credential} does not give access to clinic ${requestedClinicId}`);
}

/** `seconds` after `from`, as stored. */
const secondsAfter = (from: Date, seconds: number): string => new Date(from.getTime() + seconds * 1000).toISOString();

/** A new key and its row (the key itself is returned once and never stored). */
export function newKeyRow(
  clinicId: string,
  environment: Environment,
  scopes: readonly Scope[] | null,
  createdAt: string,
  expiresAt: string | null,
): { key: string; row: ApiKeyTable } {
  const key = generateApiKey(environment);
  const row: ApiKeyTable = {
    id: newId(),
    clinic_id: clinicId,
    environment,
    key_hash: hashApiKey(key),
    key_prefix: displayPrefix(key),
    key_last4: lastFour(key),
    created_at: createdAt,
    revoked_at: null,
    scopes: storedScopes(scopes),
    expires_at: expiresAt,
    last_used_at: null,
  };
  return { key, row };
}

/** What the operator sees of a key, never the key itself. */
function keyView(row: ApiKeyTable): Omit<ApiKeySummaryView, 'revoked_at'> {
  return {
    api_key_id: row.id,
    environment: row.environment as Environment,
    key_prefix: row.key_prefix,
    key_last4: row.key_last4,
    scopes: parseStoredScopes(row.scopes),
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
  };
}

function issuedView(key: string, row: ApiKeyTable): IssuedApiKeyView {
  return { ...keyView(row), api_key: key, clinic_id: row.clinic_id };
}

function toClinic(row: { id: string; name: string; free_shipping: number; created_at: string }): ClinicView {
  return { clinic_id: row.id, name: row.name, free_shipping: row.free_shipping === 1, created_at: row.created_at };
}

import { newId } from '../shared/ids.js';
import { randomUUID } from 'node:crypto';
import type { KeyringContext, ServiceContext } from '../context.js';
import type { Claim } from './claim.js';
import * as repo from './idempotency.repository.js';
import type { Holder, IdempotencyKeyRow, KeyScope, StoredResponse } from './idempotency.repository.js';

export type { KeyScope, StoredResponse } from './idempotency.repository.js';

/** How long a key holds its first response (Stripe's 24 hours). */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;

export type { Claim } from './claim.js';

export type ClaimOutcome =
  /** This request holds the key: run it, then `completeIdempotentRequest` or `releaseIdempotencyKey`. */
  | { kind: 'claimed'; claim: Claim }
  /** The key's first request completed with this same request: answer its response again. */
  | { kind: 'replay'; response: StoredResponse; originalRequestId: string }
  /** The key was used with another request (other body or path parameters). */
  | { kind: 'mismatch' }
  /** The key's first request is still running. */
  | { kind: 'in_flight' }
  /** The key's first request was carried out (its change committed) but its answer was never stored. */
  | { kind: 'executed_unanswered' };

/** Rounds of "insert, else look": a row can vanish between the two (a 5xx released it), so look again. */
const CLAIM_ROUNDS = 5;

/**
 * Claims `scope` for a request with fingerprint `requestHash`, or says why not. Atomic across
 * instances: the insert does nothing when the key exists, and every take-over is conditional on
 * the holder that was seen. An expired key (24 h) is free again, whatever it held; a key held
 * longer than the lock timeout (IDEMPOTENCY_LOCK_TIMEOUT_MS: its request died with its process) is taken over.
 */
export async function claimIdempotencyKey(
  ctx: ServiceContext & KeyringContext,
  scope: KeyScope,
  requestHash: string,
  requestId: string,
): Promise<ClaimOutcome> {
  for (let round = 0; round < CLAIM_ROUNDS; round += 1) {
    const now = ctx.clock();
    const holder: Holder = {
      request_hash: requestHash,
      lock_token: randomUUID(),
      locked_at: now.toISOString(),
      request_id: requestId,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + KEY_TTL_MS).toISOString(),
    };
    const id = newId();
    if (await repo.insertKeyIfAbsent(ctx.db, id, scope, holder)) return claimed(id, holder);

    const row = await repo.findKey(ctx.db, scope);
    if (!row) continue;
    if (row.expires_at <= holder.created_at) {
      if (await repo.takeOverKey(ctx.db, row.id, row.lock_token, holder)) return claimed(row.id, holder);
      continue;
    }
    if (row.request_hash !== requestHash) return { kind: 'mismatch' };
    const replay = storedResponse(ctx, row);
    if (replay) return { kind: 'replay', response: replay, originalRequestId: row.request_id };
    if (Date.parse(row.locked_at) + ctx.config.idempotencyLockTimeoutMs <= now.getTime()) {
      // Carried out, its answer lost with its process: never run again (the change is committed).
      if (row.state === 'executed') return { kind: 'executed_unanswered' };
      // The same request, abandoned: run it again, within the key's original 24 hours.
      const resumed: Holder = { ...holder, created_at: row.created_at, expires_at: row.expires_at };
      if (await repo.takeOverKey(ctx.db, row.id, row.lock_token, resumed)) return claimed(row.id, resumed);
      continue;
    }
    return { kind: 'in_flight' };
  }
  // The key changed hands at every look: someone is busy with it right now.
  return { kind: 'in_flight' };
}

/**
 * Stores the response of a claimed request for replay. Returns false when the key was taken
 * over meanwhile (the request ran past the lock timeout): the newer holder's result stands.
 */
export async function completeIdempotentRequest(
  ctx: ServiceContext & KeyringContext,
  claim: Claim,
  response: StoredResponse,
): Promise<boolean> {
  return repo.completeKey(ctx.db, claim.id, claim.token, { ...response, body: ctx.keyring.seal(response.body, claim.id) });
}

/**
 * Lets a claimed key go without storing anything (the request failed with a 5xx): a retry runs
 * again. A key whose change committed (executed) is kept: running it again would do it twice.
 */
export async function releaseIdempotencyKey(ctx: ServiceContext, claim: Claim): Promise<void> {
  await repo.deleteHeldKey(ctx.db, claim.id, claim.token);
}

const PURGE_BATCH = 500;
const PURGE_MAX_BATCHES = 20;

/**
 * Deletes the keys expired by now, in batches of 500 (short statements that never hold many
 * locks), at most 10 000 per call so that one pass stays bounded; the next pass takes the rest.
 * Returns how many rows were deleted.
 */
export async function purgeExpiredIdempotencyKeys(
  ctx: Pick<ServiceContext, 'db' | 'clock'>,
  options: { batchSize?: number; maxBatches?: number } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? PURGE_BATCH;
  const maxBatches = options.maxBatches ?? PURGE_MAX_BATCHES;
  const now = ctx.clock().toISOString();
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch += 1) {
    const count = await repo.deleteExpiredKeys(ctx.db, now, batchSize);
    deleted += count;
    if (count < batchSize) break;
  }
  return deleted;
}

function claimed(id: string, holder: Holder): ClaimOutcome {
  return { kind: 'claimed', claim: { id, token: holder.lock_token } };
}

/**
 * The stored response, decrypted. A key that sealed it and is no longer configured makes the replay
 * fail (500, logged), never run the request again: rotate keys with the previous one kept for the
 * keys' 24 hours (docs/webhooks.md, rotating the data encryption key).
 */
function storedResponse(ctx: KeyringContext, row: IdempotencyKeyRow): StoredResponse | null {
  if (row.state !== 'completed' || row.response_status === null || row.response_body === null || row.response_key_id === null) {
    return null;
  }
  const body = ctx.keyring.open({ keyId: row.response_key_id, value: row.response_body }, row.id);
  return { status: row.response_status, contentType: row.response_content_type, body };
}

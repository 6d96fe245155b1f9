import type { Selectable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { IdempotencyKeyTable } from './idempotency.tables.js';
import type { SealedValue } from '../secrets/keyring.js';

/**
 * Idempotency keys. Every write that changes who holds a key is one conditional statement (an
 * insert that does nothing on conflict, an update or delete guarded by the holder's lock token),
 * so that concurrent requests on any number of instances agree on a single holder.
 */

export type IdempotencyKeyRow = Selectable<IdempotencyKeyTable>;

/** Where a key lives: the API key's clinic, the route, the key. */
export interface KeyScope {
  clinicId: string;
  route: string;
  key: string;
}

/** What a request that takes a key writes (on a fresh row, or over an expired or abandoned one). */
export interface Holder {
  request_hash: string;
  lock_token: string;
  locked_at: string;
  request_id: string;
  created_at: string;
  expires_at: string;
}

const insertIfAbsent = reusableQuery(
  (
    db,
    id: string,
    clinicId: string,
    route: string,
    key: string,
    requestHash: string,
    lockToken: string,
    lockedAt: string,
    requestId: string,
    createdAt: string,
    expiresAt: string,
  ) =>
    db
      .insertInto('idempotency_keys')
      .values({
        id,
        clinic_id: clinicId,
        route,
        idempotency_key: key,
        state: 'in_progress',
        response_status: null,
        response_content_type: null,
        response_body: null,
        response_key_id: null,
        request_hash: requestHash,
        lock_token: lockToken,
        locked_at: lockedAt,
        request_id: requestId,
        created_at: createdAt,
        expires_at: expiresAt,
      })
      .onConflict((oc) => oc.columns(['clinic_id', 'route', 'idempotency_key']).doNothing())
      .returning('id'),
);

/** Claims a key that nobody holds: true when this insert created the row, false when it existed. Compiled once. */
export async function insertKeyIfAbsent(db: DbOrTrx, id: string, scope: KeyScope, holder: Holder): Promise<boolean> {
  const inserted = await insertIfAbsent(
    db,
    id,
    scope.clinicId,
    scope.route,
    scope.key,
    holder.request_hash,
    holder.lock_token,
    holder.locked_at,
    holder.request_id,
    holder.created_at,
    holder.expires_at,
  );
  return inserted.length > 0;
}

const keyOfScope = reusableQuery((db, clinicId: string, route: string, key: string) =>
  db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('route', '=', route)
    .where('idempotency_key', '=', key),
);

/** The key's row (compiled once: every idempotent request reads it). */
export async function findKey(db: DbOrTrx, scope: KeyScope): Promise<IdempotencyKeyRow | undefined> {
  return (await keyOfScope(db, scope.clinicId, scope.route, scope.key))[0];
}

/**
 * Takes over a row (expired, or in progress past the lock timeout) from the holder that was seen:
 * false when someone else changed it first.
 */
export async function takeOverKey(db: DbOrTrx, id: string, seenToken: string, holder: Holder): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({
      ...holder,
      state: 'in_progress',
      response_status: null,
      response_content_type: null,
      response_body: null,
      response_key_id: null,
    })
    .where('id', '=', id)
    .where('lock_token', '=', seenToken)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface StoredResponse {
  status: number;
  contentType: string | null;
  body: string;
}

const complete = reusableQuery(
  (db, id: string, token: string, status: number, contentType: string | null, body: string, keyId: string) =>
    db
      .updateTable('idempotency_keys')
      .set({
        state: 'completed',
        response_status: status,
        response_content_type: contentType,
        response_body: body,
        response_key_id: keyId,
      })
      .where('id', '=', id)
      .where('lock_token', '=', token)
      .where('state', 'in', ['in_progress', 'executed'])
      .returning('id'),
);

/** Stores the holder's response: false when the key is no longer its own (taken over meanwhile). Compiled once. */
export async function completeKey(
  db: DbOrTrx,
  id: string,
  token: string,
  response: { status: number; contentType: string | null; body: SealedValue },
): Promise<boolean> {
  const updated = await complete(db, id, token, response.status, response.contentType, response.body.value, response.body.keyId);
  return updated.length === 1;
}

/** Frees a key its holder could not complete (a 5xx), so that a retry runs again. */
export async function deleteHeldKey(db: DbOrTrx, id: string, token: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('id', '=', id)
    .where('lock_token', '=', token)
    .where('state', '=', 'in_progress')
    .execute();
}

/** Deletes up to `limit` rows expired at `now`; returns how many. Unscoped: the purge serves every clinic. */
export async function deleteExpiredKeys(db: DbOrTrx, now: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('id', 'in', (q) => q.selectFrom('idempotency_keys').select('id').where('expires_at', '<=', now).limit(limit))
    // Checked again on the row itself: one taken over meanwhile (a new expiry) is not deleted.
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

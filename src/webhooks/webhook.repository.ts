// Over 250 lines: the endpoint table's statements, including the secret rotation's, which must stay consistent with each other.
import type { DbOrTrx, DialectName, Trx } from '../db/database.js';
import { lockRowsInOrder } from '../db/dialect.js';
import { olderThan, type PagePosition } from '../db/keyset-page.js';
import type { EndpointLimits } from '../delivery/endpoint-limits.js';
import { storedEventTypes } from '../events/event-type-filter.js';
import type { StoredSecret } from '../delivery/endpoint-secret.js';
import type { EndpointStatus, WebhookEndpointTable } from '../delivery/webhook.tables.js';

/** Webhook endpoints. Partner lookups are scoped by clinic; the unscoped ones (operator, worker) say so. */

export async function insertEndpoint(db: DbOrTrx, row: WebhookEndpointTable): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/**
 * Serializes endpoint registrations of one clinic (PostgreSQL row lock on the clinic), so that the
 * per-clinic maximum holds under concurrent registrations. SQLite transactions are already serial.
 */
export async function lockClinicEndpoints(trx: Trx, clinicId: string, dialect: DialectName): Promise<void> {
  await lockRowsInOrder(trx, dialect, 'clinics', [clinicId]);
}

export async function countLiveEndpoints(db: DbOrTrx, clinicId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('clinic_id', '=', clinicId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return row.n;
}

export async function findLiveEndpointByUrl(
  db: DbOrTrx,
  clinicId: string,
  url: string,
): Promise<WebhookEndpointTable | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('url', '=', url)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function findLiveEndpoint(
  db: DbOrTrx,
  clinicId: string,
  endpointId: string,
): Promise<WebhookEndpointTable | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('id', '=', endpointId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function listLiveEndpoints(db: DbOrTrx, clinicId: string): Promise<WebhookEndpointTable[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Marks an endpoint deleted; false when there was no such live endpoint in the clinic. */
export async function softDeleteEndpoint(db: DbOrTrx, clinicId: string, endpointId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ deleted_at: now })
    .where('clinic_id', '=', clinicId)
    .where('id', '=', endpointId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Sets the partner's limits of a live endpoint of the clinic (only the fields given); the row as
 * changed, or undefined when there is no such endpoint.
 */
export async function updateEndpointLimits(
  db: DbOrTrx,
  clinicId: string,
  endpointId: string,
  limits: EndpointLimits,
): Promise<WebhookEndpointTable | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({
      ...(limits.max_in_flight !== undefined ? { max_in_flight: limits.max_in_flight } : {}),
      ...(limits.max_per_second !== undefined ? { max_per_second: limits.max_per_second } : {}),
      ...(limits.event_types !== undefined ? { event_types: storedEventTypes(limits.event_types) } : {}),
    })
    .where('clinic_id', '=', clinicId)
    .where('id', '=', endpointId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Rotates the signing secret of a live endpoint of the clinic in one statement: the current secret
 * (its ciphertext as stored) becomes the previous one until `previousUntil` (null: dropped at once),
 * and `next` becomes current. The row as changed, or undefined when there is no such endpoint.
 */
export async function rotateSecret(
  db: DbOrTrx,
  clinicId: string,
  endpointId: string,
  next: Pick<WebhookEndpointTable, 'secret' | 'secret_key_id'>,
  previousUntil: string | null,
): Promise<WebhookEndpointTable | undefined> {
  // The right-hand sides of an UPDATE read the row as it was, on both dialects.
  const keepPrevious = previousUntil !== null;
  return db
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      previous_secret: keepPrevious ? eb.ref('secret') : null,
      previous_secret_key_id: keepPrevious ? eb.ref('secret_key_id') : null,
      previous_secret_expires_at: previousUntil,
      ...next,
    }))
    .where('clinic_id', '=', clinicId)
    .where('id', '=', endpointId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Operator: any endpoint, deleted ones included (unscoped on purpose). */
export async function findEndpointById(db: DbOrTrx, endpointId: string): Promise<WebhookEndpointTable | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).executeTakeFirst();
}

/**
 * Operator: a page of live endpoints of every clinic, or of one, optionally in one state, newest
 * first (keyset on (created_at, id)); unscoped on purpose.
 */
export async function listEndpointsForOperator(
  db: DbOrTrx,
  filter: { clinicId?: string | undefined; status?: EndpointStatus | undefined; before?: PagePosition | undefined },
  limit: number,
): Promise<WebhookEndpointTable[]> {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('deleted_at', 'is', null);
  if (filter.clinicId) query = query.where('clinic_id', '=', filter.clinicId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.before) query = query.where(olderThan({ createdAt: 'created_at', id: 'id' }, filter.before));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function enableEndpoint(db: DbOrTrx, endpointId: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ status: 'active', disabled_at: null, disabled_reason: null, failing_since: null })
    .where('id', '=', endpointId)
    .execute();
}

// ---- encryption of the signing secrets (unscoped on purpose: every endpoint, deleted ones included) ----

/**
 * Endpoints whose secret is not encrypted under `keyId` (plaintext ones included; only those with
 * `plaintextOnly`), in id order after `afterId`.
 */
export async function secretsNotUnderKey(
  db: DbOrTrx,
  keyId: string,
  options: { afterId?: string | undefined; limit?: number | undefined; plaintextOnly?: boolean | undefined } = {},
): Promise<StoredSecret[]> {
  let query = db
    .selectFrom('webhook_endpoints')
    .select(['id', 'secret', 'secret_key_id'])
    .where((eb) =>
      options.plaintextOnly
        ? eb('secret_key_id', 'is', null)
        : eb.or([eb('secret_key_id', 'is', null), eb('secret_key_id', '!=', keyId)]),
    );
  if (options.afterId !== undefined) query = query.where('id', '>', options.afterId);
  if (options.limit !== undefined) query = query.limit(options.limit);
  return query.orderBy('id').execute();
}

/** Stores a re-encrypted secret, unless the row no longer holds the value read (another process replaced it). */
export async function replaceSecret(
  db: DbOrTrx,
  from: StoredSecret,
  to: Pick<WebhookEndpointTable, 'secret' | 'secret_key_id'>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set(to)
    .where('id', '=', from.id)
    .where('secret', '=', from.secret)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** What a previous secret is stored as (after a rotation). */
export type StoredPreviousSecret = Pick<WebhookEndpointTable, 'id' | 'previous_secret_key_id' | 'previous_secret_expires_at'> & {
  previous_secret: string;
};

/** Endpoints whose previous secret (after a rotation) is not encrypted under `keyId`, in id order after `afterId`. */
export async function previousSecretsNotUnderKey(
  db: DbOrTrx,
  keyId: string,
  options: { afterId?: string | undefined; limit: number },
): Promise<StoredPreviousSecret[]> {
  let query = db
    .selectFrom('webhook_endpoints')
    .select(['id', 'previous_secret_key_id', 'previous_secret_expires_at'])
    .select((eb) => eb.fn.coalesce('previous_secret', eb.val('')).as('previous_secret'))
    .where('previous_secret', 'is not', null)
    .where((eb) => eb.or([eb('previous_secret_key_id', 'is', null), eb('previous_secret_key_id', '!=', keyId)]));
  if (options.afterId !== undefined) query = query.where('id', '>', options.afterId);
  return query.orderBy('id').limit(options.limit).execute();
}

/**
 * Stores a re-encrypted previous secret (`to`), or drops it (null: its window is over), unless the row
 * no longer holds the value read (a rotation or another process replaced it meanwhile).
 */
export async function replacePreviousSecret(
  db: DbOrTrx,
  from: StoredPreviousSecret,
  to: Pick<WebhookEndpointTable, 'secret' | 'secret_key_id'> | null,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set(
      to === null
        ? { previous_secret: null, previous_secret_key_id: null, previous_secret_expires_at: null }
        : { previous_secret: to.secret, previous_secret_key_id: to.secret_key_id },
    )
    .where('id', '=', from.id)
    .where('previous_secret', '=', from.previous_secret)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

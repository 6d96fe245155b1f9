import type { DbOrTrx } from '../db/database.js';
import type { Write, WriteTarget } from '../db/write.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { OAuthClientTable } from './oauth.tables.js';

export function oauthClientInsert(change: WriteTarget, row: OAuthClientTable): Write {
  return change.statements.insertInto('oauth_clients').values(row);
}

/**
 * Authentication's lookup (the token endpoint, and every request with an access token): unscoped on
 * purpose (the client id is what tells us the clinic), by primary key, compiled once.
 */
const clientById = reusableQuery((db, clientId: string) => db.selectFrom('oauth_clients').selectAll().where('id', '=', clientId));

export async function findOAuthClient(db: DbOrTrx, clientId: string): Promise<OAuthClientTable | undefined> {
  return (await clientById(db, clientId))[0];
}

export async function listOAuthClients(db: DbOrTrx, clinicId: string): Promise<OAuthClientTable[]> {
  return db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function oauthClientRevocation(db: DbOrTrx, clientId: string, revokedAt: string) {
  return db
    .updateTable('oauth_clients')
    .set({ revoked_at: revokedAt })
    .where('id', '=', clientId)
    .where('revoked_at', 'is', null);
}

/** Records an accepted client assertion's `jti`; a second insert of the same one fails on the primary key. */
export function assertionInsert(change: WriteTarget, row: { client_id: string; jti: string; expires_at: string }): Write {
  return change.statements.insertInto('oauth_client_assertions').values(row);
}

/** The client's assertions that have expired: their `jti` can no longer be replayed (the assertion is refused as expired). */
export function expiredAssertionsDeletion(change: WriteTarget, clientId: string, now: string): Write {
  return change.statements.deleteFrom('oauth_client_assertions').where('client_id', '=', clientId).where('expires_at', '<', now);
}

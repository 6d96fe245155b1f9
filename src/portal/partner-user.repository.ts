import type { DbOrTrx } from '../db/database.js';
import type { PartnerInvitationTable, PartnerSessionTable, PartnerUserTable } from './partner-user.tables.js';

export async function insertPartnerUser(db: DbOrTrx, row: PartnerUserTable): Promise<void> {
  await db.insertInto('partner_users').values(row).execute();
}

export async function findPartnerUserByEmail(db: DbOrTrx, email: string): Promise<PartnerUserTable | undefined> {
  return db.selectFrom('partner_users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findPartnerUserById(db: DbOrTrx, id: string): Promise<PartnerUserTable | undefined> {
  return db.selectFrom('partner_users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A clinic's portal users, oldest first (a clinic has a handful). */
export async function listPartnerUsersOfClinic(db: DbOrTrx, clinicId: string): Promise<PartnerUserTable[]> {
  return db.selectFrom('partner_users').selectAll().where('clinic_id', '=', clinicId).orderBy('id').execute();
}

/** Disables an enabled account: false when it was already disabled (or does not exist). */
export async function markPartnerUserDisabled(db: DbOrTrx, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('partner_users')
    .set({ disabled_at: at })
    .where('id', '=', id)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function setPartnerUserPassword(
  db: DbOrTrx,
  id: string,
  values: { password_hash: string; name: string; activated_at: string },
): Promise<void> {
  await db
    .updateTable('partner_users')
    .set((eb) => ({
      password_hash: values.password_hash,
      name: values.name,
      // The first acceptance activates; a later link (a password reset) keeps the first date.
      activated_at: eb.fn.coalesce('activated_at', eb.val(values.activated_at)),
    }))
    .where('id', '=', id)
    .execute();
}

export async function insertInvitation(db: DbOrTrx, row: PartnerInvitationTable): Promise<void> {
  await db.insertInto('partner_invitations').values(row).execute();
}

/** Voids every unused link of a user (a new invitation replaces the previous ones). */
export async function voidInvitationsOf(db: DbOrTrx, partnerUserId: string, at: string): Promise<void> {
  await db
    .updateTable('partner_invitations')
    .set({ used_at: at })
    .where('partner_user_id', '=', partnerUserId)
    .where('used_at', 'is', null)
    .execute();
}

/** An invitation with whom it is for and their clinic's name. */
export async function findInvitation(db: DbOrTrx, id: string) {
  return db
    .selectFrom('partner_invitations as i')
    .innerJoin('partner_users as u', 'u.id', 'i.partner_user_id')
    .innerJoin('clinics as c', 'c.id', 'u.clinic_id')
    .select([
      'i.id',
      'i.expires_at',
      'i.used_at',
      'u.id as partner_user_id',
      'u.email',
      'u.role',
      'u.disabled_at',
      'u.clinic_id',
      'c.name as clinic_name',
    ])
    .where('i.id', '=', id)
    .executeTakeFirst();
}

/**
 * Uses a link, in one conditional statement: true for the one request that found it unused and
 * unexpired; any other (a second tab, a replay) finds it used and gets false.
 */
export async function useInvitation(db: DbOrTrx, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('partner_invitations')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertPartnerSession(db: DbOrTrx, row: PartnerSessionTable): Promise<void> {
  await db.insertInto('partner_sessions').values(row).execute();
}

/** A session with its account and clinic, in one query (every portal request makes it). */
export async function findPartnerSession(db: DbOrTrx, sessionId: string) {
  return db
    .selectFrom('partner_sessions as s')
    .innerJoin('partner_users as u', 'u.id', 's.partner_user_id')
    .select([
      's.id',
      's.last_seen_at',
      's.expires_at',
      'u.id as partner_user_id',
      'u.clinic_id',
      'u.email',
      'u.name',
      'u.role',
      'u.disabled_at',
    ])
    .where('s.id', '=', sessionId)
    .executeTakeFirst();
}

export async function touchPartnerSession(db: DbOrTrx, sessionId: string, at: string): Promise<void> {
  await db.updateTable('partner_sessions').set({ last_seen_at: at }).where('id', '=', sessionId).execute();
}

export async function deletePartnerSession(db: DbOrTrx, sessionId: string): Promise<void> {
  await db.deleteFrom('partner_sessions').where('id', '=', sessionId).execute();
}

export async function deletePartnerSessionsOf(db: DbOrTrx, partnerUserId: string): Promise<void> {
  await db.deleteFrom('partner_sessions').where('partner_user_id', '=', partnerUserId).execute();
}

/** Deletes one user's sessions past their absolute end or idle since `idleBefore` (done at each sign-in). */
export async function deleteEndedPartnerSessionsOf(
  db: DbOrTrx,
  partnerUserId: string,
  now: string,
  idleBefore: string,
): Promise<void> {
  await db
    .deleteFrom('partner_sessions')
    .where('partner_user_id', '=', partnerUserId)
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleBefore)]))
    .execute();
}

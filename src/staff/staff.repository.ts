import type { DbOrTrx, DialectName, Trx } from '../db/database.js';
import { forUpdate } from '../db/dialect.js';
import type { StaffMemberTable, StaffSessionTable, StaffSignInFailureTable } from './staff.tables.js';

export async function insertStaffMember(db: DbOrTrx, member: StaffMemberTable): Promise<void> {
  await db.insertInto('staff_members').values(member).execute();
}

export async function findStaffByEmail(db: DbOrTrx, email: string): Promise<StaffMemberTable | undefined> {
  return db.selectFrom('staff_members').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findStaffById(db: DbOrTrx, id: string): Promise<StaffMemberTable | undefined> {
  return db.selectFrom('staff_members').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every account, oldest first (a pharmacy's staff is a few dozen people at most), or the first `limit`. */
export async function listStaffMembers(db: DbOrTrx, limit?: number): Promise<StaffMemberTable[]> {
  const query = db.selectFrom('staff_members').selectAll().orderBy('created_at').orderBy('id');
  return (limit === undefined ? query : query.limit(limit)).execute();
}

/**
 * The ids of the enabled admin accounts, locked until the transaction ends (PostgreSQL `FOR UPDATE`;
 * SQLite runs one transaction at a time): two admins disabling each other at once are settled one
 * after the other, and the second sees the first's change.
 */
export async function lockActiveAdmins(trx: Trx, dialect: DialectName): Promise<string[]> {
  const query = trx
    .selectFrom('staff_members')
    .select('id')
    .where('role', '=', 'admin')
    .where('disabled_at', 'is', null)
    .orderBy('id');
  return (await forUpdate(query, dialect).execute()).map((row) => row.id);
}

/** Disables an enabled account: false when it was already disabled (or does not exist). */
export async function markStaffDisabled(db: DbOrTrx, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('staff_members')
    .set({ disabled_at: at })
    .where('id', '=', id)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertSession(db: DbOrTrx, session: StaffSessionTable): Promise<void> {
  await db.insertInto('staff_sessions').values(session).execute();
}

/** A session with its account, in one query (every console request makes it). */
export async function findSessionWithStaff(db: DbOrTrx, sessionId: string) {
  return db
    .selectFrom('staff_sessions as s')
    .innerJoin('staff_members as m', 'm.id', 's.staff_id')
    .select([
      's.id',
      's.last_seen_at',
      's.expires_at',
      'm.id as staff_id',
      'm.email',
      'm.name',
      'm.role',
      'm.disabled_at',
      'm.totp_enabled_at',
    ])
    .where('s.id', '=', sessionId)
    .executeTakeFirst();
}

export async function touchSession(db: DbOrTrx, sessionId: string, at: string): Promise<void> {
  await db.updateTable('staff_sessions').set({ last_seen_at: at }).where('id', '=', sessionId).execute();
}

export async function deleteSession(db: DbOrTrx, sessionId: string): Promise<void> {
  await db.deleteFrom('staff_sessions').where('id', '=', sessionId).execute();
}

export async function deleteSessionsOf(db: DbOrTrx, staffId: string): Promise<void> {
  await db.deleteFrom('staff_sessions').where('staff_id', '=', staffId).execute();
}

/** Deletes one member's sessions past their absolute end or idle since `idleBefore` (done at each sign-in). */
export async function deleteEndedSessionsOf(db: DbOrTrx, staffId: string, now: string, idleBefore: string): Promise<void> {
  await db
    .deleteFrom('staff_sessions')
    .where('staff_id', '=', staffId)
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleBefore)]))
    .execute();
}

export async function findSignInFailures(db: DbOrTrx, digest: string): Promise<StaffSignInFailureTable | undefined> {
  return db.selectFrom('staff_sign_in_failures').selectAll().where('email_digest', '=', digest).executeTakeFirst();
}

/**
 * Reserves one sign-in attempt of an email, in one statement, before its password is checked: the
 * attempt counts as a failure from here on (a success gives it back by clearing the count). A count
 * whose window started at or before `windowStartedBefore` starts over at 1; the attempt that brings
 * the count to `limit` also locks the email until `lockUntil`. While the email is locked, or its
 * count has reached the limit, nothing is reserved and the answer is null: however many attempts
 * arrive at once, on however many instances, at most `limit` are ever checked per window (the
 * database settles the race on the row). Otherwise the answer is the count with this attempt.
 */
export async function reserveSignInAttempt(
  db: DbOrTrx,
  digest: string,
  at: { now: string; windowStartedBefore: string; lockUntil: string },
  limit: number,
): Promise<number | null> {
  const { now, windowStartedBefore, lockUntil } = at;
  const row = await db
    .insertInto('staff_sign_in_failures')
    .values({ email_digest: digest, failures: 1, window_started_at: now, locked_until: null })
    .onConflict((oc) =>
      oc
        .column('email_digest')
        .doUpdateSet((eb) => {
          const expired = eb('staff_sign_in_failures.window_started_at', '<=', windowStartedBefore);
          const count = eb
            .case()
            .when(expired)
            .then(1)
            .else(eb('staff_sign_in_failures.failures', '+', 1))
            .end();
          return {
            failures: count,
            window_started_at: eb.case().when(expired).then(now).else(eb.ref('staff_sign_in_failures.window_started_at')).end(),
            locked_until: eb.case().when(count, '>=', limit).then(lockUntil).else(null).end(),
          };
        })
        .where((eb) =>
          eb.and([
            eb.or([eb('staff_sign_in_failures.locked_until', 'is', null), eb('staff_sign_in_failures.locked_until', '<=', now)]),
            eb.or([
              eb('staff_sign_in_failures.failures', '<', limit),
              eb('staff_sign_in_failures.window_started_at', '<=', windowStartedBefore),
            ]),
          ]),
        ),
    )
    .returning('failures')
    .executeTakeFirst();
  return row?.failures ?? null;
}

export async function clearSignInFailures(db: DbOrTrx, digest: string): Promise<void> {
  await db.deleteFrom('staff_sign_in_failures').where('email_digest', '=', digest).execute();
}

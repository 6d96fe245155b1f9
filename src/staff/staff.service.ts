// Over 250 lines: staff accounts and their sessions, whose sign-in lock, idle and absolute limits share constants and rows.
import { newId } from '../shared/ids.js';
import { createHash, randomBytes } from 'node:crypto';
import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import type { KeyringContext, ServiceContext } from '../context.js';
import { checkSignInCode } from '../accounts/second-factor.service.js';
import { constraintViolation } from '../db/constraints.js';
import type { DbOrTrx } from '../db/database.js';
import { conflict, fieldError, notFound } from '../errors.js';
import { hashPassword, unknownAccountHash, verifyPassword } from './password.js';
import { passwordWeakness } from './password-strength.js';
import * as repo from './staff.repository.js';
import type { StaffMemberTable, StaffRole } from './staff.tables.js';

/**
 * Staff accounts and their console sessions (issue 10; docs/console.md). Sessions end after
 * CONSOLE_IDLE_TIMEOUT_MINUTES without a request and 12 hours after sign-in in any case (HIPAA's
 * automatic log-off, §164.312(a)(2)(iii)); disabling an account ends its sessions at once.
 */

/** A session's absolute lifetime, whatever the activity. */
export const SESSION_MAX_AGE_MS = 12 * 60 * 60 * 1000;
/** Failed sign-ins of one email within SIGN_IN_WINDOW_MS that lock it for SIGN_IN_LOCK_MS. */
export const SIGN_IN_FAILURE_LIMIT = 5;
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
export const SIGN_IN_LOCK_MS = 15 * 60 * 1000;

/** Who is signed in: what the guard, the role checks and the audit trail need. */
export interface StaffIdentity {
  readonly staffId: string;
  readonly email: string;
  readonly name: string;
  readonly role: StaffRole;
  /** Whether the account has turned two-step sign-in (TOTP) on. */
  readonly totpEnabled: boolean;
}

export interface StaffView {
  staff_id: string;
  email: string;
  name: string;
  role: StaffRole;
  created_at: string;
  disabled_at: string | null;
}

const toView = (row: StaffMemberTable): StaffView => ({
  staff_id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  created_at: row.created_at,
  disabled_at: row.disabled_at,
});

/** Emails are compared without case and surrounding spaces: one account per address. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

const digest = (value: string): string => createHash('sha256').update(value).digest('hex');

export async function createStaffMember(
  ctx: ServiceContext,
  input: { email: string; name: string; role: StaffRole; password: string },
  audit: AuditContext | null,
): Promise<StaffView> {
  const email = normalizeEmail(input.email);
  // Before anything is looked up or hashed; the email and name are the first words an attacker tries.
  const weakness = await passwordWeakness(input.password, [email, ...email.split(/[@.]/), input.name]);
  if (weakness !== null) throw fieldError('password', weakness);
  // Before the (deliberately slow) password hash; the unique constraint still settles a race.
  if (await repo.findStaffByEmail(ctx.db, email)) throw emailTaken();
  const row: StaffMemberTable = {
    id: newId(),
    email,
    name: input.name.trim(),
    role: input.role,
    password_hash: await hashPassword(input.password, ctx.config.passwordHashing),
    created_at: ctx.clock().toISOString(),
    disabled_at: null,
    totp_secret: null,
    totp_secret_key_id: null,
    totp_enabled_at: null,
    totp_last_step: null,
  };
  try {
    await runChange(ctx, audit, async (change) => {
      const trx = await change.transaction();
      await repo.insertStaffMember(trx, row);
      change.audit?.('create', staffResource(row.id));
    });
  } catch (error) {
    if (constraintViolation(error) === 'unique') throw emailTaken();
    throw error;
  }
  return toView(row);
}

const emailTaken = () =>
  conflict('A staff member with this email already exists', { email: 'is already the email of a staff member' });

/** Whether any staff account exists (a new deployment has none until `create-staff`). */
export async function hasStaffMembers(ctx: ServiceContext): Promise<boolean> {
  return (await repo.listStaffMembers(ctx.db, 1)).length > 0;
}

/** One staff account by id, disabled or not (a sign-off checks the person it names): null when there is none. */
export async function findStaffMember(db: DbOrTrx, staffId: string): Promise<StaffView | null> {
  const row = await repo.findStaffById(db, staffId);
  return row ? toView(row) : null;
}

export async function listStaffMembers(ctx: ServiceContext): Promise<StaffView[]> {
  return (await repo.listStaffMembers(ctx.db)).map(toView);
}

/**
 * Disables an account and ends its sessions, in one transaction. Disabling a disabled account changes
 * nothing. The last enabled admin cannot be disabled, by anyone, itself included (409): the console
 * would be left without anyone to manage staff and keys. The enabled admins are locked first, so that
 * two admins disabling each other at once cannot both succeed.
 */
export async function disableStaffMember(ctx: ServiceContext, staffId: string, audit: AuditContext): Promise<StaffView> {
  const at = ctx.clock().toISOString();
  const row = await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const admins = await repo.lockActiveAdmins(trx, ctx.dialect);
    if (admins.length === 1 && admins[0] === staffId) throw lastAdmin();
    if (await repo.markStaffDisabled(trx, staffId, at)) {
      await repo.deleteSessionsOf(trx, staffId);
      change.audit('update', staffResource(staffId));
    }
    return repo.findStaffById(trx, staffId);
  });
  if (!row) throw notFound('Staff member not found');
  return toView(row);
}

const lastAdmin = () =>
  conflict(
    'This is the last active admin: it cannot be disabled. Create another admin first (POST /api/admin/staff), then disable this one.',
  );

const staffResource = (id: string) => ({ type: 'staff_member' as const, id, clinicId: null });

export type SignInOutcome =
  | { kind: 'signed_in'; token: string; staff: StaffIdentity; expiresAt: Date }
  /** Wrong email or password, or a disabled account: the answer does not say which. */
  | { kind: 'refused' }
  /** The password is right and the account has a second factor: its code is missing or wrong (counted as a failure). */
  | { kind: 'second_factor'; codeGiven: boolean }
  /** Too many failures for this email (existing or not): locked for `retryAfterSeconds`. */
  | { kind: 'locked'; retryAfterSeconds: number };

/**
 * Checks an email and password. The password is hashed whether or not the account exists, and a
 * lock counts failures per email whether or not it exists, so neither the time taken nor the
 * answer tells an attacker which emails have accounts.
 *
 * The attempt is counted as a failure before the password is checked (one conditional statement,
 * staff.repository.ts `reserveSignInAttempt`) and given back only when it proves right: N guesses
 * sent at once can never get more than SIGN_IN_FAILURE_LIMIT passwords checked, since the ones past
 * the limit find it reached and are refused as locked without a comparison (issue 21, item 4).
 */
export async function signIn(
  ctx: ServiceContext & KeyringContext,
  email: string,
  password: string,
  totpCode?: string,
): Promise<SignInOutcome> {
  const now = ctx.clock();
  const iso = now.toISOString();
  const normalized = normalizeEmail(email);
  const emailDigest = digest(normalized);

  const lockedForSeconds = await reserveSignIn(ctx, emailDigest, now);
  if (lockedForSeconds !== null) return { kind: 'locked', retryAfterSeconds: lockedForSeconds };

  const member = await repo.findStaffByEmail(ctx.db, normalized);
  const matches = await verifyPassword(password, member?.password_hash ?? unknownAccountHash(ctx.config.passwordHashing));
  // A failure was counted when the attempt was reserved: nothing more to write.
  if (!member || !matches || member.disabled_at !== null) return { kind: 'refused' };
  if (member.totp_enabled_at !== null) {
    if (totpCode === undefined || totpCode === '') return { kind: 'second_factor', codeGiven: false };
    if (!(await checkSignInCode(ctx, 'staff_members', member, totpCode))) return { kind: 'second_factor', codeGiven: true };
  }

  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_MAX_AGE_MS);
  await runChange(ctx, null, async (change) => {
    const trx = await change.transaction();
    await repo.clearSignInFailures(trx, emailDigest);
    await repo.deleteEndedSessionsOf(trx, member.id, iso, idleSince(ctx, now));
    await repo.insertSession(trx, {
      id: digest(token),
      staff_id: member.id,
      created_at: iso,
      last_seen_at: iso,
      expires_at: expiresAt.toISOString(),
    });
  });
  return { kind: 'signed_in', token, staff: identityOf(member), expiresAt };
}

/**
 * Reserves one sign-in attempt of an email's digest (counted as a failure until a success clears
 * it): null when reserved, or the seconds until the locked email may try again. The staff's and the
 * portal's sign-ins share it, each under digests of their own.
 */
export async function reserveSignIn(ctx: ServiceContext, emailDigest: string, now: Date): Promise<number | null> {
  const reserved = await repo.reserveSignInAttempt(
    ctx.db,
    emailDigest,
    {
      now: now.toISOString(),
      windowStartedBefore: new Date(now.getTime() - SIGN_IN_WINDOW_MS).toISOString(),
      lockUntil: new Date(now.getTime() + SIGN_IN_LOCK_MS).toISOString(),
    },
    SIGN_IN_FAILURE_LIMIT,
  );
  return reserved === null ? lockedFor(ctx, emailDigest, now) : null;
}

/** Clears an email digest's failed sign-ins, in the transaction of the sign-in that proved right. */
export async function clearSignInLock(db: DbOrTrx, emailDigest: string): Promise<void> {
  await repo.clearSignInFailures(db, emailDigest);
}

/** Seconds until a locked email may try again (the whole lock when its end is not on record yet). */
async function lockedFor(ctx: ServiceContext, emailDigest: string, now: Date): Promise<number> {
  const lockedUntil = (await repo.findSignInFailures(ctx.db, emailDigest))?.locked_until;
  const ms = lockedUntil ? Date.parse(lockedUntil) - now.getTime() : SIGN_IN_LOCK_MS;
  return Math.max(1, Math.ceil(ms / 1000));
}

const identityOf = (
  row: Pick<StaffMemberTable, 'email' | 'name' | 'role' | 'totp_enabled_at'> & { id: string },
): StaffIdentity => ({
  staffId: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  totpEnabled: row.totp_enabled_at !== null,
});

/** Sessions last seen at or before this instant have been idle past the timeout. */
export const idleSince = (ctx: ServiceContext, now: Date): string =>
  new Date(now.getTime() - ctx.config.consoleIdleTimeoutMs).toISOString();

/** Whether a session (the console's or the portal's) has ended: its account disabled, past its 12 hours, or idle too long. */
export const sessionEnded = (
  ctx: ServiceContext,
  session: { disabled_at: string | null; expires_at: string; last_seen_at: string },
  now: Date,
): boolean =>
  session.disabled_at !== null || session.expires_at <= now.toISOString() || session.last_seen_at <= idleSince(ctx, now);

/**
 * The staff member a session token belongs to, or null when it is unknown, idle past the timeout,
 * past its 12 hours, or its account is disabled (an ended session is deleted). A live session's
 * idle timeout starts over.
 */
export async function staffOfSession(ctx: ServiceContext, token: string): Promise<StaffIdentity | null> {
  const now = ctx.clock();
  const sessionId = digest(token);
  const session = await repo.findSessionWithStaff(ctx.db, sessionId);
  if (!session) return null;
  const ended = sessionEnded(ctx, session, now);
  if (ended) {
    await repo.deleteSession(ctx.db, sessionId);
    return null;
  }
  await repo.touchSession(ctx.db, sessionId, now.toISOString());
  return identityOf({
    id: session.staff_id,
    email: session.email,
    name: session.name,
    role: session.role,
    totp_enabled_at: session.totp_enabled_at,
  });
}

export async function signOut(ctx: ServiceContext, token: string): Promise<void> {
  await repo.deleteSession(ctx.db, digest(token));
}

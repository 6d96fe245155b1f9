// Over 250 lines: portal accounts from invitation to session, whose lock-out and second-factor rules are shared with every step.
import { createHash, randomBytes } from 'node:crypto';
import { checkSignInCode } from '../accounts/second-factor.service.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import { getClinic } from '../clinics/clinic.service.js';
import type { KeyringContext, ServiceContext } from '../context.js';
import { constraintViolation } from '../db/constraints.js';
import { conflict, fieldError, notFound } from '../errors.js';
import { newId } from '../shared/ids.js';
import { hashPassword, unknownAccountHash, verifyPassword } from '../staff/password.js';
import { passwordWeakness } from '../staff/password-strength.js';
import {
  clearSignInLock,
  idleSince,
  normalizeEmail,
  reserveSignIn,
  SESSION_MAX_AGE_MS,
  sessionEnded,
} from '../staff/staff.service.js';
import * as repo from './partner-user.repository.js';
import type { PartnerUserRole, PartnerUserTable } from './partner-user.tables.js';
import type { PartnerUserIdentity } from './partner-user-identity.js';

/**
 * The partner portal's accounts (issue 22; docs/portal.md): a person of a clinic, invited by an
 * operator, sets a password through a single-use link and signs in at /portal. Passwords, lock-out
 * and sessions follow the staff's rules (staff/staff.service.ts): the same password judge, the same
 * five failures per email in 15 minutes (counted apart from the staff's: the digest is of
 * `portal:<email>`), the same idle timeout and 12-hour end.
 */

/** How long an invitation link stays usable. */
export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;

export type PartnerUserStatus = 'invited' | 'active' | 'disabled';

export interface PartnerUserView {
  partner_user_id: string;
  clinic_id: string;
  email: string;
  name: string | null;
  role: PartnerUserRole;
  status: PartnerUserStatus;
  totp_enabled: boolean;
  created_at: string;
  activated_at: string | null;
  disabled_at: string | null;
}

export const toPartnerUserView = (row: PartnerUserTable): PartnerUserView => ({
  partner_user_id: row.id,
  clinic_id: row.clinic_id,
  email: row.email,
  name: row.name,
  role: row.role,
  status: row.disabled_at !== null ? 'disabled' : row.activated_at !== null ? 'active' : 'invited',
  totp_enabled: row.totp_enabled_at !== null,
  created_at: row.created_at,
  activated_at: row.activated_at,
  disabled_at: row.disabled_at,
});

const digest = (value: string): string => createHash('sha256').update(value).digest('hex');
/** The sign-in lock's key: apart from a staff account of the same address. */
const lockDigest = (email: string): string => digest(`portal:${email}`);

const userResource = (row: { id: string; clinic_id: string }) =>
  ({ type: 'partner_user', id: row.id, clinicId: row.clinic_id }) as const;

/** An invitation just made: the token goes into the link once and is never stored. */
export interface Invitation {
  partner_user: PartnerUserView;
  token: string;
  expires_at: string;
}

/** Creates a clinic's portal user and their first invitation, in one transaction. */
export async function invitePartnerUser(
  ctx: ServiceContext,
  input: { clinicId: string; email: string; role: PartnerUserRole },
  audit: AuditContext,
): Promise<Invitation> {
  const email = normalizeEmail(input.email);
  await getClinic(ctx, input.clinicId);
  if (await repo.findPartnerUserByEmail(ctx.db, email)) throw emailTaken();
  const now = ctx.clock();
  const row: PartnerUserTable = {
    id: newId(),
    clinic_id: input.clinicId,
    email,
    name: null,
    role: input.role,
    password_hash: null,
    created_at: now.toISOString(),
    activated_at: null,
    disabled_at: null,
    totp_secret: null,
    totp_secret_key_id: null,
    totp_enabled_at: null,
    totp_last_step: null,
  };
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS).toISOString();
  try {
    await runChange(ctx, audit, async (change) => {
      const trx = await change.transaction();
      await repo.insertPartnerUser(trx, row);
      await repo.insertInvitation(trx, {
        id: digest(token),
        partner_user_id: row.id,
        created_at: row.created_at,
        expires_at: expiresAt,
        used_at: null,
      });
      change.audit('create', userResource(row));
    });
  } catch (error) {
    if (constraintViolation(error) === 'unique') throw emailTaken();
    throw error;
  }
  return { partner_user: toPartnerUserView(row), token, expires_at: expiresAt };
}

const emailTaken = () =>
  conflict('This email already has a partner portal account: send it a new link instead', {
    email: 'is already the email of a portal user',
  });

/**
 * A new link for a portal user (lost invitation, or a forgotten password): the previous links are
 * void, the account is unchanged until the new link is used. 409 for a disabled account.
 */
export async function reinvitePartnerUser(ctx: ServiceContext, partnerUserId: string, audit: AuditContext): Promise<Invitation> {
  const now = ctx.clock();
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS).toISOString();
  const row = await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const user = await repo.findPartnerUserById(trx, partnerUserId);
    if (!user) throw notFound('Portal user not found');
    if (user.disabled_at !== null) throw conflict('This portal user is disabled: invite the person again with a new account');
    await repo.voidInvitationsOf(trx, user.id, now.toISOString());
    await repo.insertInvitation(trx, {
      id: digest(token),
      partner_user_id: user.id,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      used_at: null,
    });
    change.audit('update', userResource(user));
    return user;
  });
  return { partner_user: toPartnerUserView(row), token, expires_at: expiresAt };
}

/** A new link for the portal user with this email (the command line names people by email). */
export async function reinvitePartnerUserByEmail(ctx: ServiceContext, email: string, audit: AuditContext): Promise<Invitation> {
  const user = await repo.findPartnerUserByEmail(ctx.db, normalizeEmail(email));
  if (!user) throw notFound('No partner portal account has this email');
  return reinvitePartnerUser(ctx, user.id, audit);
}

export async function listPartnerUsers(ctx: ServiceContext, clinicId: string): Promise<PartnerUserView[]> {
  await getClinic(ctx, clinicId);
  return (await repo.listPartnerUsersOfClinic(ctx.db, clinicId)).map(toPartnerUserView);
}

/** Disables a portal user and ends their sessions, in one transaction. Disabling twice changes nothing. */
export async function disablePartnerUser(
  ctx: ServiceContext,
  partnerUserId: string,
  audit: AuditContext,
): Promise<PartnerUserView> {
  const at = ctx.clock().toISOString();
  const row = await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    const user = await repo.findPartnerUserById(trx, partnerUserId);
    if (!user) throw notFound('Portal user not found');
    if (await repo.markPartnerUserDisabled(trx, partnerUserId, at)) {
      await repo.deletePartnerSessionsOf(trx, partnerUserId);
      await repo.voidInvitationsOf(trx, partnerUserId, at);
      change.audit('update', userResource(user));
    }
    return repo.findPartnerUserById(trx, partnerUserId);
  });
  if (!row) throw notFound('Portal user not found');
  return toPartnerUserView(row);
}

const invitationGone = () =>
  notFound(
    'This invitation link is not valid: it was already used, has expired (links last 72 hours) or was replaced by a newer one. Ask the pharmacy for a new link.',
  );

/** What the invitation page shows before the password is chosen; 404 for a link that cannot be used. */
export async function describeInvitation(ctx: ServiceContext, token: string) {
  const invitation = await repo.findInvitation(ctx.db, digest(token));
  const now = ctx.clock().toISOString();
  if (!invitation || invitation.used_at !== null || invitation.expires_at <= now || invitation.disabled_at !== null) {
    throw invitationGone();
  }
  return {
    email: invitation.email,
    clinic_name: invitation.clinic_name,
    role: invitation.role,
    expires_at: invitation.expires_at,
  };
}

/**
 * Sets the invitee's name and password through the link, once: the link is used up in the same
 * transaction (conditionally: of two requests racing with one link, one wins), and any session of
 * the account ends (a reset link also signs out the old password's sessions).
 */
export async function acceptInvitation(
  ctx: ServiceContext,
  input: { token: string; name: string; password: string },
  request: { requestId: string | null; clientAddress: string | null },
): Promise<{ email: string }> {
  const id = digest(input.token);
  const invitation = await repo.findInvitation(ctx.db, id);
  const nowIso = ctx.clock().toISOString();
  if (!invitation || invitation.used_at !== null || invitation.expires_at <= nowIso || invitation.disabled_at !== null) {
    throw invitationGone();
  }
  const name = input.name.trim();
  const weakness = await passwordWeakness(input.password, [
    invitation.email,
    ...invitation.email.split(/[@.]/),
    name,
    invitation.clinic_name,
  ]);
  if (weakness !== null) throw fieldError('password', weakness);
  const passwordHash = await hashPassword(input.password, ctx.config.passwordHashing);
  const audit: AuditContext = {
    actor: {
      type: 'partner_user',
      partnerUserId: invitation.partner_user_id,
      email: invitation.email,
      name,
      clinicId: invitation.clinic_id,
    },
    ...request,
  };
  await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    if (!(await repo.useInvitation(trx, id, nowIso))) throw invitationGone();
    await repo.setPartnerUserPassword(trx, invitation.partner_user_id, {
      password_hash: passwordHash,
      name,
      activated_at: nowIso,
    });
    await repo.deletePartnerSessionsOf(trx, invitation.partner_user_id);
    change.audit('update', { type: 'partner_user', id: invitation.partner_user_id, clinicId: invitation.clinic_id });
  });
  return { email: invitation.email };
}

export type PortalSignInOutcome =
  | { kind: 'signed_in'; token: string; user: PartnerUserIdentity; expiresAt: Date }
  /** Wrong email or password, or a disabled or not yet activated account: the answer does not say which. */
  | { kind: 'refused' }
  /** The password is right and the account has a second factor: the code is missing or wrong. */
  | { kind: 'second_factor'; codeGiven: boolean }
  | { kind: 'locked'; retryAfterSeconds: number };

/**
 * Checks an email, password and (when the account has turned it on) TOTP code. As for staff, the
 * attempt counts as a failure before anything is checked and is given back only on success: a
 * missing or wrong code counts, so codes cannot be guessed past the lock either.
 */
export async function signInPartnerUser(
  ctx: ServiceContext & KeyringContext,
  input: { email: string; password: string; totpCode?: string | undefined },
): Promise<PortalSignInOutcome> {
  const now = ctx.clock();
  const iso = now.toISOString();
  const email = normalizeEmail(input.email);
  const emailDigest = lockDigest(email);
  const lockedForSeconds = await reserveSignIn(ctx, emailDigest, now);
  if (lockedForSeconds !== null) return { kind: 'locked', retryAfterSeconds: lockedForSeconds };

  const user = await repo.findPartnerUserByEmail(ctx.db, email);
  const matches = await verifyPassword(input.password, user?.password_hash ?? unknownAccountHash(ctx.config.passwordHashing));
  if (!user || user.password_hash === null || !matches || user.disabled_at !== null) return { kind: 'refused' };
  if (user.totp_enabled_at !== null) {
    if (input.totpCode === undefined || input.totpCode === '') return { kind: 'second_factor', codeGiven: false };
    if (!(await checkSignInCode(ctx, 'partner_users', user, input.totpCode))) return { kind: 'second_factor', codeGiven: true };
  }

  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_MAX_AGE_MS);
  await runChange(ctx, null, async (change) => {
    const trx = await change.transaction();
    await clearSignInLock(trx, emailDigest);
    await repo.deleteEndedPartnerSessionsOf(trx, user.id, iso, idleSince(ctx, now));
    await repo.insertPartnerSession(trx, {
      id: digest(token),
      partner_user_id: user.id,
      created_at: iso,
      last_seen_at: iso,
      expires_at: expiresAt.toISOString(),
    });
  });
  return { kind: 'signed_in', token, user: partnerUserIdentityOf(user), expiresAt };
}

const partnerUserIdentityOf = (
  row: Pick<PartnerUserTable, 'id' | 'clinic_id' | 'email' | 'name' | 'role'>,
): PartnerUserIdentity => ({
  partnerUserId: row.id,
  clinicId: row.clinic_id,
  email: row.email,
  name: row.name,
  role: row.role,
});

/**
 * The portal user a session token belongs to, or null when it is unknown, idle past the timeout,
 * past its 12 hours, or its account is disabled (an ended session is deleted). A live session's idle
 * timeout starts over.
 */
export async function partnerUserOfSession(ctx: ServiceContext, token: string): Promise<PartnerUserIdentity | null> {
  const now = ctx.clock();
  const sessionId = digest(token);
  const session = await repo.findPartnerSession(ctx.db, sessionId);
  if (!session) return null;
  const ended = sessionEnded(ctx, session, now);
  if (ended) {
    await repo.deletePartnerSession(ctx.db, sessionId);
    return null;
  }
  await repo.touchPartnerSession(ctx.db, sessionId, now.toISOString());
  return partnerUserIdentityOf({
    id: session.partner_user_id,
    clinic_id: session.clinic_id,
    email: session.email,
    name: session.name,
    role: session.role,
  });
}

export async function signOutPartnerUser(ctx: ServiceContext, token: string): Promise<void> {
  await repo.deletePartnerSession(ctx.db, digest(token));
}

/** The session's account as the portal shows it: its clinic's name and whether it has a second factor. */
export async function portalAccountOf(ctx: ServiceContext, user: PartnerUserIdentity) {
  const [row, clinic] = await Promise.all([
    repo.findPartnerUserById(ctx.db, user.partnerUserId),
    // A portal user's clinic always exists (a foreign key): a failure here is the database's, not a 404.
    getClinic(ctx, user.clinicId),
  ]);
  return { clinicName: clinic.name, totpEnabled: row?.totp_enabled_at != null };
}

import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import type { KeyringContext, ServiceContext } from '../context.js';
import { conflict, fieldError } from '../errors.js';
import { acceptTotp, newTotpSecret, openTotpSecret, sealTotpSecret, totpUri } from './totp.js';
import * as repo from './second-factor.repository.js';
import type { AccountTable, SecondFactorColumns } from './second-factor.repository.js';

/**
 * Enrolling and checking the TOTP second factor of an account, a staff member's or a portal user's
 * (the two tables have the same four columns: migration 018). Enrollment is two steps: a secret is
 * made and shown once (the account is unchanged until then: sign-in asks for no code), then a code
 * from the app confirms it and turns it on. Turning it off takes a current code.
 */

/** What a sign-in that needs the second factor's code says of `totp_code` (401). */
export const SECOND_FACTOR_MISSING = 'enter the 6-digit code of your authenticator app';
export const SECOND_FACTOR_WRONG = 'is not the current code of your authenticator app (or was already used)';

const resourceOf = (table: AccountTable, id: string, clinicId: string | null) =>
  table === 'staff_members'
    ? ({ type: 'staff_member', id, clinicId: null } as const)
    : ({ type: 'partner_user', id, clinicId } as const);

/**
 * Starts (or starts over) an enrollment: a new secret, off until a code confirms it (not audited:
 * nothing about signing in has changed yet; the confirmation is). 409 when already on.
 */
export async function startTotpEnrollment(
  ctx: ServiceContext & KeyringContext,
  table: AccountTable,
  accountId: string,
): Promise<{ secret: string; otpauth_uri: string }> {
  const account = await repo.findAccount(ctx.db, table, accountId);
  if (!account) throw new Error(`No ${table} row ${accountId}`);
  if (account.totp_enabled_at !== null) throw alreadyOn();
  const secret = newTotpSecret();
  await repo.updateAccount(ctx.db, table, accountId, {
    ...sealTotpSecret(ctx.keyring, table, accountId, secret),
    totp_last_step: null,
  });
  return { secret, otpauth_uri: totpUri(secret, account.email) };
}

const alreadyOn = () => conflict('Two-step sign-in is already on: turn it off first (with a current code) to set up another app');

/** Confirms an enrollment with a code of the new secret: from now on, sign-in asks for a code. */
export async function confirmTotpEnrollment(
  ctx: ServiceContext & KeyringContext,
  table: AccountTable,
  accountId: string,
  code: string,
  audit: AuditContext,
  clinicId: string | null,
): Promise<void> {
  const account = await repo.findAccount(ctx.db, table, accountId);
  if (!account) throw new Error(`No ${table} row ${accountId}`);
  if (account.totp_enabled_at !== null) throw alreadyOn();
  if (account.totp_secret === null) {
    throw conflict('No two-step sign-in is being set up: start with POST …/account/totp');
  }
  const step = checkCode(ctx, table, account, code);
  await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    await repo.updateAccount(trx, table, accountId, { totp_enabled_at: ctx.clock().toISOString(), totp_last_step: step });
    change.audit('update', resourceOf(table, accountId, clinicId));
  });
}

/** Turns the second factor off, with a current code. */
export async function disableTotp(
  ctx: ServiceContext & KeyringContext,
  table: AccountTable,
  accountId: string,
  code: string,
  audit: AuditContext,
  clinicId: string | null,
): Promise<void> {
  const account = await repo.findAccount(ctx.db, table, accountId);
  if (!account) throw new Error(`No ${table} row ${accountId}`);
  if (account.totp_enabled_at === null || account.totp_secret === null) throw conflict('Two-step sign-in is not on');
  checkCode(ctx, table, account, code);
  await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    await repo.updateAccount(trx, table, accountId, {
      totp_secret: null,
      totp_secret_key_id: null,
      totp_enabled_at: null,
      totp_last_step: null,
    });
    change.audit('update', resourceOf(table, accountId, clinicId));
  });
}

/** The step of a right, unused code (400 naming `code` otherwise). */
function checkCode(
  ctx: ServiceContext & KeyringContext,
  table: AccountTable,
  account: SecondFactorColumns,
  code: string,
): number {
  const secret = openTotpSecret(ctx.keyring, table, account.id, {
    totp_secret: account.totp_secret ?? '',
    totp_secret_key_id: account.totp_secret_key_id,
  });
  const step = acceptTotp(secret, code, ctx.clock(), account.totp_last_step);
  if (step === null) throw fieldError('code', SECOND_FACTOR_WRONG);
  return step;
}

/**
 * At sign-in, once the password proved right: whether `code` is a right, unused code of the
 * account's enabled second factor. A right code is used up at once (conditionally, so that two
 * sign-ins racing with the same code cannot both pass).
 */
export async function checkSignInCode(
  ctx: ServiceContext & KeyringContext,
  table: AccountTable,
  account: SecondFactorColumns,
  code: string,
): Promise<boolean> {
  if (account.totp_secret === null) return false;
  const secret = openTotpSecret(ctx.keyring, table, account.id, {
    totp_secret: account.totp_secret,
    totp_secret_key_id: account.totp_secret_key_id,
  });
  const step = acceptTotp(secret, code, ctx.clock(), account.totp_last_step);
  if (step === null) return false;
  return repo.useTotpStep(ctx.db, table, account.id, step);
}

/**
 * Re-encrypts under the current data key every TOTP secret under another key (part of
 * `rotate-encryption-key`), one transaction per table: accounts are people, a few thousand at most.
 * Secrets that cannot be decrypted are left as they are and named.
 */
export async function rotateTotpSecrets(
  ctx: ServiceContext & KeyringContext,
): Promise<{ reencrypted: number; unreadable: { account_id: string; reason: string }[] }> {
  let reencrypted = 0;
  const unreadable: { account_id: string; reason: string }[] = [];
  for (const table of ['staff_members', 'partner_users'] as const) {
    // Not audited: the secrets are the same, only the data key they are sealed under changes.
    await runChange(ctx, null, async (change) => {
      const trx = await change.transaction();
      const rows = await repo.listSecretsNotUnder(trx, table, ctx.keyring.currentKeyId);
      for (const row of rows) {
        let secret: string;
        try {
          secret = openTotpSecret(ctx.keyring, table, row.id, {
            totp_secret: row.totp_secret ?? '',
            totp_secret_key_id: row.totp_secret_key_id,
          });
        } catch (error) {
          unreadable.push({ account_id: row.id, reason: error instanceof Error ? error.message : String(error) });
          continue;
        }
        await repo.updateAccount(trx, table, row.id, sealTotpSecret(ctx.keyring, table, row.id, secret));
        reencrypted += 1;
      }
    });
  }
  return { reencrypted, unreadable };
}

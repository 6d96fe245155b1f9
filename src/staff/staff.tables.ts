/** Row types of the staff accounts (migration 008). Column conventions: see db/database.ts. */

/** The staff roles (src/staff/operator-roles.ts says what each may call; `technician` since migration 033). */
export const STAFF_ROLES = ['admin', 'pharmacist', 'technician'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** A person of the pharmacy who signs in to the console. */
export interface StaffMemberTable {
  id: string;
  /** Lower-cased. */
  email: string;
  name: string;
  role: StaffRole;
  /** `scrypt$N$r$p$<salt>$<hash>` (staff/password.ts). */
  password_hash: string;
  created_at: string;
  /** Set once an admin disables the account: it cannot sign in, and its sessions are gone. */
  disabled_at: string | null;
  /** The TOTP second factor (migration 018; accounts/second-factor.service.ts): encrypted secret, its key id. */
  totp_secret: string | null;
  totp_secret_key_id: string | null;
  /** Set once a code confirmed the enrollment: from then on sign-in asks for a code. */
  totp_enabled_at: string | null;
  /** The last 30-second step whose code was accepted: a code is never accepted twice. */
  totp_last_step: number | null;
}

/** A signed-in browser: the cookie holds a random token, the row its SHA-256. */
export interface StaffSessionTable {
  id: string;
  staff_id: string;
  created_at: string;
  /** The last request made with it: the idle timeout counts from here. */
  last_seen_at: string;
  /** The absolute end (12 hours after sign-in), whatever the activity. */
  expires_at: string;
}

/** Failed sign-ins of one email (existing or not), by a digest of it. */
export interface StaffSignInFailureTable {
  email_digest: string;
  failures: number;
  window_started_at: string;
  locked_until: string | null;
}

export interface StaffTables {
  staff_members: StaffMemberTable;
  staff_sessions: StaffSessionTable;
  staff_sign_in_failures: StaffSignInFailureTable;
}

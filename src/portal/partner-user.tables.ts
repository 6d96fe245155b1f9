/** Row types of the partner portal's accounts (migration 018). Column conventions: see db/database.ts. */

export const PARTNER_USER_ROLES = ['developer', 'viewer'] as const;
export type PartnerUserRole = (typeof PARTNER_USER_ROLES)[number];

/** A person of a clinic who signs in to the partner portal. */
export interface PartnerUserTable {
  id: string;
  clinic_id: string;
  /** Lower-cased; unique across every clinic. */
  email: string;
  /** Given when the invitation is accepted. */
  name: string | null;
  role: PartnerUserRole;
  /** `scrypt$…` (staff/password.ts); null until the invitation is accepted. */
  password_hash: string | null;
  created_at: string;
  activated_at: string | null;
  disabled_at: string | null;
  /** The TOTP secret (base32), encrypted under the data key `totp_secret_key_id`; set at enrollment. */
  totp_secret: string | null;
  totp_secret_key_id: string | null;
  /** Set once a code confirmed the enrollment: from then on sign-in asks for a code. */
  totp_enabled_at: string | null;
  /** The last 30-second step whose code was accepted: a code is never accepted twice. */
  totp_last_step: number | null;
}

/** A single-use link to set a password: the row holds a SHA-256 of the link's token. */
export interface PartnerInvitationTable {
  id: string;
  partner_user_id: string;
  created_at: string;
  /** 72 hours after it was made. */
  expires_at: string;
  used_at: string | null;
}

/** A signed-in browser: the cookie holds a random token, the row its SHA-256. */
export interface PartnerSessionTable {
  id: string;
  partner_user_id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

export interface PartnerUserTables {
  partner_users: PartnerUserTable;
  partner_invitations: PartnerInvitationTable;
  partner_sessions: PartnerSessionTable;
}

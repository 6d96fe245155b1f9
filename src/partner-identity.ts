import type { Scope } from './clinics/scopes.js';

/**
 * Who a partner request acts for: the clinic its credential belongs to, the credential itself (an
 * API key, or an OAuth client whose access token came as `Authorization: Bearer`), and what that
 * credential may do. Set by the partner guard (http/partner-guard.ts) once the credential is
 * accepted; every partner service takes it and scopes its reads and writes to `clinicId`.
 */
export interface PartnerIdentity {
  readonly clinicId: string;
  /** The API key the request came with (absent for an OAuth access token). */
  readonly apiKeyId?: string;
  /** The OAuth client whose access token the request came with (absent for an API key). */
  readonly oauthClientId?: string;
  /** What the credential may do; absent or null: everything (a key or client issued without scopes). */
  readonly scopes?: readonly Scope[] | null;
}

/**
 * Who a partner request acts for: the clinic its API key belongs to, and the key itself. Set by
 * the partner guard (http/partner-guard.ts) once the key is accepted; every partner service takes
 * it and scopes its reads and writes to `clinicId`.
 */
export interface PartnerIdentity {
  readonly clinicId: string;
  readonly apiKeyId: string;
}

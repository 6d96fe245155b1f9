/** Row types of the deprecations feature (migration 013). Column conventions: see db/database.ts. */

/** Who has used a deprecated thing, and how often: one row per registry code and credential. */
export interface DeprecationUsageTable {
  /** The registry's code (registry.ts). */
  code: string;
  /** `api_key` or `oauth_client`: what `credential_id` names. */
  credential_type: string;
  credential_id: string;
  /** The credential's clinic, so that operators know whom to tell. */
  clinic_id: string;
  /** Uses counted so far, by every instance together. */
  use_count: number;
  first_seen_at: string;
  last_seen_at: string;
}

export interface DeprecationTables {
  deprecation_usage: DeprecationUsageTable;
}

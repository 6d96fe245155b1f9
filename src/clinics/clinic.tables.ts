/** Row types of the clinics feature (migration 001). Column conventions: see db/database.ts. */

export interface ClinicTable {
  id: string;
  name: string;
  free_shipping: number;
  created_at: string;
}

export interface ApiKeyTable {
  id: string;
  clinic_id: string;
  environment: string;
  /** SHA-256 (hex) of the whole key; the key itself is never stored. */
  key_hash: string;
  /** First characters of the key, for operators to recognise it (`dev_AbCd…`). */
  key_prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export interface ClinicTables {
  clinics: ClinicTable;
  api_keys: ApiKeyTable;
}

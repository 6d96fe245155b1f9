/** Row types of the clinics feature (migrations 001 and 011). Column conventions: see db/database.ts. */

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
  /** Last four characters of the key (migration 011); null for keys issued before. */
  key_last4: string | null;
  created_at: string;
  revoked_at: string | null;
  /** What the key may do: a JSON array of scopes (clinics/scopes.ts); null: full access (migration 011). */
  scopes: string | null;
  /** When the key stops working (set when it is rolled, or at issue); null: never. */
  expires_at: string | null;
  /** When the key was last accepted, to the minute (clinics/key-usage.ts); null: never used. */
  last_used_at: string | null;
}

export interface ClinicTables {
  clinics: ClinicTable;
  api_keys: ApiKeyTable;
}

/* What the operator API answers about clinics (src/clinics/clinic.schemas.ts, src/medications/medication.schemas.ts). */

import type { Scope } from '../../scopes';

export interface Clinic {
  clinic_id: string;
  name: string;
  free_shipping: boolean;
  created_at: string;
}

export type Environment = 'development' | 'production';

/** What the operator sees of a key, never the key itself (src/clinics/clinic.schemas.ts). */
interface KeyFields {
  api_key_id: string;
  environment: Environment;
  key_prefix: string;
  /** Null for keys issued before the last four characters were kept. */
  key_last4: string | null;
  /** Null: full access. */
  scopes: Scope[] | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export interface ApiKey extends KeyFields {
  revoked_at: string | null;
}

export interface IssuedApiKey extends KeyFields {
  api_key: string;
  clinic_id: string;
}

/** The answer of a roll: the successor, shown once, and when the rolled key stops working. */
export interface RolledApiKey extends IssuedApiKey {
  previous_key: { api_key_id: string; expires_at: string };
}

export interface Medication {
  medication_id: string;
  clinic_id: string;
  name: string;
  strength: string | null;
  dosage_form: string | null;
  created_at: string;
}

/** An OAuth client as the operator API lists it (src/oauth/oauth.schemas.ts): never its secret. */
export interface OAuthClient {
  client_id: string;
  clinic_id: string;
  environment: Environment;
  scopes: Scope[];
  token_endpoint_auth_method: 'client_secret_basic' | 'private_key_jwt';
  created_at: string;
  revoked_at: string | null;
}

/** A client just created: its secret, this once (null for a private_key_jwt client). */
export interface IssuedOAuthClient extends Omit<OAuthClient, 'revoked_at'> {
  client_secret: string | null;
}

/* What the operator API answers about clinics (src/clinics/clinic.schemas.ts, src/medications/medication.schemas.ts). */

export interface Clinic {
  clinic_id: string;
  name: string;
  free_shipping: boolean;
  created_at: string;
}

export type Environment = 'development' | 'production';

export interface ApiKey {
  api_key_id: string;
  environment: string;
  key_prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export interface IssuedApiKey {
  api_key_id: string;
  api_key: string;
  clinic_id: string;
  environment: Environment;
  key_prefix: string;
  created_at: string;
}

export interface Medication {
  medication_id: string;
  clinic_id: string;
  name: string;
  strength: string | null;
  dosage_form: string | null;
  created_at: string;
}

/**
 * Row types of the foundation tables. Conventions, so that both drivers bind every value:
 * ids are text (UUIDs, or opaque carrier/service ids), timestamps are ISO-8601 UTC text,
 * booleans are integers 0/1, money is integer cents, structured values are JSON text.
 */

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

export interface PractitionerTable {
  id: string;
  clinic_id: string;
  first_name: string;
  last_name: string;
  email: string;
  npi: string;
  is_veterinarian: number;
  phone: string | null;
  address_line_1: string;
  address_line_2: string | null;
  city: string;
  state_code: string;
  zip_code: string;
  status: string;
  created_at: string;
}

export interface PatientTable {
  id: string;
  clinic_id: string;
  practitioner_id: string | null;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  gender: string;
  dob: string;
  species: string;
  status: string;
  /** JSON array of `{key, value}`. */
  contacts: string;
  address_line_1: string | null;
  address_line_2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  created_at: string;
}

export interface MedicationTable {
  id: string;
  clinic_id: string;
  name: string;
  /** Lower-cased, trimmed, inner spaces collapsed: the key orders match on. */
  name_key: string;
  strength: string | null;
  dosage_form: string | null;
  created_at: string;
}

export interface CarrierTable {
  id: string;
  name: string;
  created_at: string;
}

export interface ShippingServiceTable {
  carrier_id: string;
  id: string;
  name: string;
  price_cents: number;
  created_at: string;
}

export interface ShippingServiceStatePriceTable {
  carrier_id: string;
  service_id: string;
  state_code: string;
  price_cents: number;
}

/** The transactional outbox: written in the same transaction as the change it reports. */
export interface OutboxEventTable {
  id: string;
  clinic_id: string;
  type: string;
  /** JSON object: ids and statuses only, never PHI. */
  payload: string;
  created_at: string;
  /** When the event was fanned out to webhook deliveries (null until then). */
  dispatched_at: string | null;
}

export interface FoundationTables {
  clinics: ClinicTable;
  api_keys: ApiKeyTable;
  practitioners: PractitionerTable;
  patients: PatientTable;
  medications: MedicationTable;
  carriers: CarrierTable;
  shipping_services: ShippingServiceTable;
  shipping_service_state_prices: ShippingServiceStatePriceTable;
  outbox_events: OutboxEventTable;
}

/** Row types of the practitioners feature (migration 001). Column conventions: see db/database.ts. */

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
  /** Migration 024: two letters and seven digits, upper case; null when not given. */
  dea_number?: string | null;
  /** Migration 024: JSON `[{state_code, number, expires_on}]`; null when never given. */
  licenses?: string | null;
}

export interface PractitionerTables {
  practitioners: PractitionerTable;
}

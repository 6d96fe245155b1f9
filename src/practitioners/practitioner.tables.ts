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
}

export interface PractitionerTables {
  practitioners: PractitionerTable;
}

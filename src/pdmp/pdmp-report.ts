import type { DosageUnit, Gender, PatientIdQualifier, PaymentType, ReportingStatus, RxOrigin, Species } from './asap-codes.js';
import type { AsapVersion } from './asap-versions.js';

/**
 * What one ASAP file reports: one state's PDMP, one reporting day, one pharmacy, its dispensings
 * (none: a zero report). The shapes are the caller's words (snake_case, dates `YYYY-MM-DD`), mapped
 * to segments by asap-segments.ts; nothing here knows ASAP's element numbers.
 */
export interface PdmpReport {
  /** The PDMP's state, two letters (`TX`). */
  state: string;
  version: AsapVersion;
  /** The reporting day in the pharmacy's time zone, `YYYY-MM-DD`: a zero report reports it. */
  day: string;
  pharmacy: PdmpPharmacy;
  /** IS01/IS02, when the PDMP assigned the submitter an id; else the pharmacy's NPI and name. */
  source?: { id: string; name: string };
  records: readonly PdmpDispensing[];
}

export interface PostalAddress {
  line1: string;
  line2?: string;
  city: string;
  /** Two letters. */
  state: string;
  /** `12345` or `12345-6789`. */
  postal_code: string;
}

export interface PdmpPharmacy {
  name: string;
  npi: string;
  /** NCPDP (NABP) provider id, seven digits. */
  ncpdp?: string;
  dea: string;
  address: PostalAddress;
  /** Ten digits; punctuation is removed. */
  phone: string;
  contact_name?: string;
  /** The state pharmacy permit (PHA13), where a PDMP asks for it. */
  permit_number?: string;
}

export interface PdmpPatient {
  /** PAT01–PAT03: an identifier, where the state asks for one (its jurisdiction: `US` or a state). */
  id?: { qualifier: PatientIdQualifier; value: string; jurisdiction?: string };
  last_name: string;
  first_name: string;
  middle_name?: string;
  name_prefix?: string;
  name_suffix?: string;
  address: PostalAddress;
  phone?: string;
  birth_date: string;
  gender: Gender;
  /** A veterinary patient: the names above are the owner's, `animal_name` is the animal's. */
  species: Species;
  animal_name?: string;
}

export interface PdmpPrescriber {
  npi: string;
  dea: string;
  /** The suffix of an institution's DEA number a prescriber writes under (`-001AB`'s `001AB`). */
  dea_suffix?: string;
  last_name: string;
  first_name: string;
  middle_name?: string;
  phone?: string;
  /** PRE04, and in 4.2B PRE10, the state that issued it. */
  state_license?: { number: string; state: string };
}

/** One ingredient of a compounded preparation; the controlled ones are reported (CDI). */
export interface PdmpIngredient {
  name: string;
  /** Required for a controlled ingredient: CDI03 is an NDC. */
  ndc?: string;
  quantity: number;
  unit: DosageUnit;
  controlled: boolean;
}

/** What was dispensed: a manufactured product by its NDC, or a compound and its ingredients. */
export type PdmpProduct = { type: 'ndc'; ndc: string } | { type: 'compound'; ingredients: readonly PdmpIngredient[] };

export interface PdmpDispensing {
  status: ReportingStatus;
  rx_number: string;
  /** 0 for the first fill, then 1, 2… for refills. */
  fill_number: number;
  written_on: string;
  refills_authorized: number;
  filled_on: string;
  /** DSP17, when the patient received it (for a mail-order pharmacy, the day it shipped). */
  sold_on?: string;
  quantity: number;
  unit: DosageUnit;
  days_supply: number;
  product: PdmpProduct;
  origin: RxOrigin;
  /** 0 (the default) when not a partial fill; else the partial fill's sequence, 1–99. */
  partial_fill?: number;
  payment: PaymentType;
  pharmacist_npi?: string;
  /** DSP20/DSP21: an electronic prescription's reference and order numbers (EPCS). */
  electronic_prescription?: { reference_number?: string; order_number?: string };
  quantity_prescribed?: number;
  sig?: string;
  diagnosis_code?: string;
  patient: PdmpPatient;
  prescriber: PdmpPrescriber;
  /** AIR: a state-issued prescription serial number or the pharmacist's name, where a state asks. */
  additional?: {
    rx_serial_number?: { state: string; number: string };
    pharmacist_last_name?: string;
    pharmacist_first_name?: string;
  };
}

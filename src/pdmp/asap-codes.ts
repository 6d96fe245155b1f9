/**
 * The ASAP code lists the writer uses, each from a name the caller understands to the code the
 * standard defines. Where a list was read from VistA (WorldVistA/VistA-M, PSOASAP0 and the 4.1 zero
 * report definitions of PSO625PI) or parafill/asap, it says so; docs/controlled.md lists the sources.
 */

/** DSP01 Reporting Status (VistA PSOASAP0 DSP01, ASAP 4.1+; Minnesota Board of Pharmacy, "File Submission"). */
export const REPORTING_STATUS = Object.freeze({ new: '00', revise: '01', void: '02' } as const);
export type ReportingStatus = keyof typeof REPORTING_STATUS;

/** DSP11 Drug Dosage Units Code and CDI05 Compound Drug Dosage Units Code (VistA PSOASAP0 DSP11). */
export const DOSAGE_UNITS = Object.freeze({ each: '01', mL: '02', g: '03' } as const);
export type DosageUnit = keyof typeof DOSAGE_UNITS;

/** PAT19 Gender Code (VistA PSOASAP0 PAT19). */
export const GENDER = Object.freeze({ female: 'F', male: 'M', unknown: 'U' } as const);
export type Gender = keyof typeof GENDER;

/**
 * PAT20 Species Code: 01 human (VistA PSOASAP0 PAT20); 02 a veterinary patient, whose owner's name
 * is PAT07/PAT08 and whose own name is PAT23 (as veterinary submitters write it; not read in the
 * standard's text).
 */
export const SPECIES = Object.freeze({ human: '01', veterinary: '02' } as const);
export type Species = keyof typeof SPECIES;

/**
 * DSP12 Transmission Form of Rx Origin Code: 01 written, 02 telephone, 05 electronic and 99 other as
 * VistA maps them (PSOASAP0 DSP12); 04 fax as the standard's list is commonly quoted (not read in
 * the standard's text).
 */
export const RX_ORIGIN = Object.freeze({ written: '01', telephone: '02', fax: '04', electronic: '05', other: '99' } as const);
export type RxOrigin = keyof typeof RX_ORIGIN;

/** DSP16 Classification Code for Payment Type (parafill/asap, DSP segment). */
export const PAYMENT_TYPE = Object.freeze({
  private_pay: '01',
  medicaid: '02',
  medicare: '03',
  commercial_insurance: '04',
  military_va: '05',
  workers_compensation: '06',
  indian_nations: '07',
  other: '99',
} as const);
export type PaymentType = keyof typeof PAYMENT_TYPE;

/** PAT02 ID Qualifier (VistA PSO625PI, PAT02). */
export const PATIENT_ID_QUALIFIER = Object.freeze({
  military: '01',
  state_issued: '02',
  unique_system: '03',
  permanent_resident_card: '04',
  passport: '05',
  drivers_license: '06',
  ssn: '07',
  tribal: '08',
  other: '99',
} as const);
export type PatientIdQualifier = keyof typeof PATIENT_ID_QUALIFIER;

/** DSP07 and CDI02 Product ID Qualifier: 01 NDC; 06 a compound, in DSP07 only (VistA PSO625PI). */
export const PRODUCT_ID_QUALIFIER = Object.freeze({ ndc: '01', compound: '06' } as const);

/**
 * DSP08 for a compound: the standard asks for 99999 as the first five characters, the rest assigned
 * by the pharmacy (VistA PSO625PI, DSP08), and the CDI segments then list the ingredients; state
 * guides ask for eleven nines, which this writer sends.
 */
export const COMPOUND_PRODUCT_ID = '99999999999';

/** TH03 Transaction Type: 01, send/request (VistA PSOASAP0 TH03). */
export const SEND_REQUEST_TRANSACTION = '01';

/** TH07 File Type. */
export const FILE_TYPE = Object.freeze({ production: 'P', test: 'T' } as const);
export type FileType = keyof typeof FILE_TYPE;

/** The zero report's patient: PAT07 `REPORT`, PAT08 `ZERO` (VistA PSO625PI's 4.1Z definitions; parafill/asap's zero report test). */
export const ZERO_REPORT_NAME = Object.freeze({ last: 'REPORT', first: 'ZERO' } as const);

/**
 * The segments of the ASAP Standard for Prescription Monitoring Programs (American Society for
 * Automation in Pharmacy) that a dispenser's file uses, with each version's elements in order, as
 * data: the writer (asap-writer.ts) serializes a segment by walking its version's list, so that a
 * version differs from another by its table, not by branches in the code.
 *
 * Sources (docs/controlled.md, "PDMP reporting in ASAP", cites them in full):
 * - 4.2A: the element lists of parafill/asap (an ASAP 4.2A library, lib/segments/*.ex), whose
 *   positions agree with the U.S. Department of Veterans Affairs' VistA Outpatient Pharmacy
 *   (WorldVistA/VistA-M, routine PSOASAP, element by element with the version that introduced it).
 * - 4.2B: VistA's PSOASAP as of patch PSO*7*772 (2025), which adds 4.2B and 5.0: PRE10
 *   "Jurisdiction or State Issuing Prescriber License Number" is new in 4.2B; the elements its
 *   PSOASAP2 marks "new in 5.0" (PAT24–PAT27, DSP27 and after, PRE11–PRE15) are not in 4.2B.
 *   Any other 4.2B addition is unverified (the standard is sold, not published): adding one is an
 *   entry in the table below.
 */

export const ASAP_VERSIONS = ['4.2A', '4.2B'] as const;
export type AsapVersion = (typeof ASAP_VERSIONS)[number];

export const isAsapVersion = (value: string): value is AsapVersion => (ASAP_VERSIONS as readonly string[]).includes(value);

export type SegmentId = 'TH' | 'IS' | 'PHA' | 'PAT' | 'DSP' | 'PRE' | 'CDI' | 'AIR' | 'TP' | 'TT';
type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
/** An element's reference: its segment and its position, `DSP02`. */
export type ElementId = `${SegmentId}${'0' | '1' | '2' | '3'}${Digit}`;

/** A segment's elements in order: reference and name, as the standard names them. */
export type ElementList = readonly (readonly [ElementId, string])[];

const numbered = (segment: SegmentId, names: readonly string[]): ElementList =>
  names.map((name, i) => [`${segment}${String(i + 1).padStart(2, '0')}` as ElementId, name] as const);

const ASAP_4_2A: Readonly<Record<SegmentId, ElementList>> = {
  TH: numbered('TH', [
    'Version/Release Number',
    'Transaction Control Number',
    'Transaction Type',
    'Response ID',
    'Creation Date',
    'Creation Time',
    'File Type',
    'Routing Number',
    'Segment Terminator Character',
  ]),
  IS: numbered('IS', ['Unique Information Source ID', 'Information Source Entity Name', 'Message']),
  PHA: numbered('PHA', [
    'National Provider Identifier (NPI)',
    'NCPDP/NABP Provider ID',
    'DEA Number',
    'Pharmacy Name',
    'Address Information – 1',
    'Address Information – 2',
    'City Address',
    'State Address',
    'ZIP Code Address',
    'Phone Number',
    'Contact Name',
    'Chain Site ID',
    "Pharmacy's Permit Number",
  ]),
  PAT: numbered('PAT', [
    'ID Qualifier of Patient Identifier',
    'ID Qualifier',
    'ID of Patient',
    'ID Qualifier of Additional Patient Identifier',
    'Additional Patient ID Qualifier',
    'Additional ID',
    'Last Name',
    'First Name',
    'Middle Name',
    'Name Prefix',
    'Name Suffix',
    'Address Information – 1',
    'Address Information – 2',
    'City Address',
    'State Address',
    'ZIP Code Address',
    'Phone Number',
    'Date of Birth',
    'Gender Code',
    'Species Code',
    'Patient Location Code',
    'Country of Non-U.S. Resident',
    'Name of Animal',
  ]),
  DSP: numbered('DSP', [
    'Reporting Status',
    'Prescription Number',
    'Date Written',
    'Refills Authorized',
    'Date Filled',
    'Fill Number',
    'Product ID Qualifier',
    'Product ID',
    'Quantity Dispensed',
    'Days Supply',
    'Drug Dosage Units Code',
    'Transmission Form of Rx Origin Code',
    'Partial Fill Indicator',
    'Pharmacist National Provider Identifier (NPI)',
    'Pharmacist State License Number',
    'Classification Code for Payment Type',
    'Date Sold',
    'RxNorm Product Qualifier',
    'RxNorm Code',
    'Electronic Prescription Reference Number',
    'Electronic Prescription Order Number',
    'Quantity Prescribed',
    'Rx SIG',
    'Treatment Type',
    'Diagnosis Code',
  ]),
  PRE: numbered('PRE', [
    'National Provider Identifier (NPI)',
    'DEA Number',
    'DEA Number Suffix',
    'Prescriber State License Number',
    'Last Name',
    'First Name',
    'Middle Name',
    'Phone Number',
    'XDEA Number',
  ]),
  CDI: numbered('CDI', [
    'Compound Drug Ingredient Sequence Number',
    'Product ID Qualifier',
    'Product ID',
    'Compound Ingredient Quantity',
    'Compound Drug Dosage Units Code',
  ]),
  AIR: numbered('AIR', [
    'State Issuing Rx Serial Number',
    'State Issued Rx Serial Number',
    'Issuing Jurisdiction',
    'ID Qualifier of Person Dropping Off or Picking Up Rx',
    'ID of Person Dropping Off or Picking Up Rx',
    'Relationship of Person Dropping Off or Picking Up Rx',
    'Last Name of Person Dropping Off or Picking Up Rx',
    'First Name of Person Dropping Off or Picking Up Rx',
    'Last Name or Initials of Pharmacist',
    'First Name of Pharmacist',
    'Dropping Off/Picking Up Identifier Qualifier',
  ]),
  TP: numbered('TP', ['Detail Segment Count']),
  TT: numbered('TT', ['Transaction Control Number', 'Segment Count']),
};

/** A version that extends another: the same segments, with elements appended at their ends. */
const extend = (
  base: Readonly<Record<SegmentId, ElementList>>,
  added: Partial<Record<SegmentId, ElementList>>,
): Readonly<Record<SegmentId, ElementList>> => {
  const table = { ...base };
  for (const [segment, elements] of Object.entries(added) as [SegmentId, ElementList][]) {
    table[segment] = [...base[segment], ...elements];
  }
  return Object.freeze(table);
};

const ASAP_4_2B = extend(ASAP_4_2A, {
  PRE: [['PRE10', 'Jurisdiction or State Issuing Prescriber License Number']],
});

/** Each version's segments and their elements. */
export const ASAP_SEGMENTS: Readonly<Record<AsapVersion, Readonly<Record<SegmentId, ElementList>>>> = Object.freeze({
  '4.2A': Object.freeze(ASAP_4_2A),
  '4.2B': ASAP_4_2B,
});

/** Every element any version defines: a value for another name is a programming error. */
export const KNOWN_ELEMENTS: ReadonlySet<string> = new Set<string>(
  Object.values(ASAP_SEGMENTS).flatMap((table) => Object.values(table).flatMap((list) => list.map(([id]) => id))),
);

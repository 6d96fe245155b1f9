import type { AsapVersion } from '../../src/pdmp/asap-versions.js';
import type { PdmpDispensing, PdmpPharmacy, PdmpReport } from '../../src/pdmp/pdmp-report.js';

/** Typed builders of PDMP reports for the tests: valid by default, any field overridden. */

export const PHARMACY_NPI = '1245319599';
export const PRESCRIBER_NPI = '1234567893';
export const PHARMACIST_NPI = '1987654328';

export function buildPharmacy(overrides: Partial<PdmpPharmacy> = {}): PdmpPharmacy {
  return {
    name: 'Hill Country Compounding',
    npi: PHARMACY_NPI,
    ncpdp: '4512345',
    dea: 'FH1234563',
    address: { line1: '100 Congress Ave', line2: 'Suite 200', city: 'Austin', state: 'TX', postal_code: '78701' },
    phone: '(512) 555-0100',
    ...overrides,
  };
}

/** Testosterone cypionate 200 mg/mL, 10 mL, for a Texas patient: a manufactured product by its NDC. */
export function buildDispensing(overrides: Partial<PdmpDispensing> = {}): PdmpDispensing {
  return {
    status: 'new',
    rx_number: 'RX-100042',
    fill_number: 0,
    written_on: '2026-02-20',
    refills_authorized: 5,
    filled_on: '2026-03-02',
    sold_on: '2026-03-02',
    quantity: 10,
    unit: 'mL',
    days_supply: 70,
    product: { type: 'ndc', ndc: '0591-3223-79' },
    origin: 'electronic',
    payment: 'private_pay',
    pharmacist_npi: PHARMACIST_NPI,
    patient: {
      last_name: 'Rivera',
      first_name: 'Daniel',
      middle_name: 'J',
      address: { line1: '12 Oak St', city: 'Dallas', state: 'TX', postal_code: '75201-1234' },
      phone: '214-555-0199',
      birth_date: '1980-07-14',
      gender: 'male',
      species: 'human',
    },
    prescriber: {
      npi: PRESCRIBER_NPI,
      dea: 'BJ1424326',
      last_name: 'Chen',
      first_name: 'Laura',
      state_license: { number: 'TX-R1234', state: 'TX' },
    },
    ...overrides,
  };
}

/** A compounded testosterone cream: one controlled ingredient (reported), two that are not. */
export function buildCompoundDispensing(overrides: Partial<PdmpDispensing> = {}): PdmpDispensing {
  return buildDispensing({
    rx_number: 'RX-100043',
    quantity: 30,
    unit: 'g',
    days_supply: 30,
    product: {
      type: 'compound',
      ingredients: [
        { name: 'Testosterone USP micronized', ndc: '51927-1078-00', quantity: 0.6, unit: 'g', controlled: true },
        { name: 'Versapro cream base', quantity: 29.1, unit: 'g', controlled: false },
        { name: 'Propylene glycol', quantity: 0.3, unit: 'g', controlled: false },
      ],
    },
    ...overrides,
  });
}

export function buildReport(
  overrides: Partial<PdmpReport> & { version?: AsapVersion } = {},
  records: readonly PdmpDispensing[] = [buildDispensing()],
): PdmpReport {
  return { state: 'TX', version: '4.2A', day: '2026-03-02', pharmacy: buildPharmacy(), records, ...overrides };
}

export const FILE_OPTIONS = {
  controlNumber: 'TX20260302A',
  createdAt: new Date('2026-03-03T07:15:30Z'),
  timeZone: 'America/Chicago',
} as const;

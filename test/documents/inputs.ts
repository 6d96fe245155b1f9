/** Typed factories of the documents' inputs: a whole, valid input, with what a test changes. */
import type { CompoundingRecordInput, RecordIngredient } from '../../src/documents/compounding-record.types.js';
import type { InvoiceInput, InvoiceLine } from '../../src/documents/invoice.types.js';
import type { DispensingPharmacy, LabelInput } from '../../src/documents/label.types.js';

export const PHARMACY: DispensingPharmacy = {
  name: 'Riverside Compounding Pharmacy',
  address_line_1: '200 Harbor Way',
  address_line_2: 'Suite 4',
  city: 'Columbus',
  state: 'OH',
  postal_code: '43215',
  phone: '(614) 555-0142',
};

export function labelInput(overrides: Partial<LabelInput> = {}): LabelInput {
  return {
    generated_at: '2026-03-02T15:04:05.000Z',
    pharmacy: PHARMACY,
    partner_brand: 'Acme Health',
    rx_number: '1000123',
    fill_number: 0,
    fill_date: '2026-03-02',
    patient_name: 'Jane Q. Doe',
    prescriber_name: 'Dr. Alan Smith, MD',
    preparation: { name: 'Semaglutide injection', strength: '5 mg/2 mL', concentration: '2.5 mg/mL' },
    controlled_schedule: null,
    directions: 'Inject 0.25 mg (0.1 mL) under the skin once weekly.',
    dose: { amount: '0.25 mg', volume_ml: '0.1', syringe_units: '10' },
    beyond_use: { date: '2026-04-06', time: null },
    storage: 'refrigerated',
    pharmacist_initials: 'MK',
    containers: [{ quantity: { value: '2', unit: 'mL' }, lot_number: 'L2603-01' }],
    ...overrides,
  };
}

/** A Schedule III preparation (testosterone cypionate), with a time on its beyond-use date. */
export const scheduleThreeLabel = (overrides: Partial<LabelInput> = {}): LabelInput =>
  labelInput({
    preparation: { name: 'Testosterone cypionate in grapeseed oil', strength: '200 mg/mL', concentration: null },
    controlled_schedule: 'III',
    dose: { amount: '100 mg', volume_ml: '0.5', syringe_units: null },
    directions: 'Inject 0.5 mL into the muscle every 7 days.',
    storage: 'room',
    beyond_use: { date: '2026-05-31', time: '17:00' },
    ...overrides,
  });

export function ingredient(index: number, overrides: Partial<RecordIngredient> = {}): RecordIngredient {
  return {
    name: `Ingredient ${index}`,
    lot_number: `LOT-${String(index).padStart(4, '0')}`,
    expires_on: '2027-01-31',
    quantity: { value: `${index}.5`, unit: 'mg' },
    supplier: 'Letco Medical',
    ...overrides,
  };
}

export function recordInput(overrides: Partial<CompoundingRecordInput> = {}): CompoundingRecordInput {
  return {
    generated_at: '2026-03-02T16:00:00.000Z',
    time_zone: 'America/New_York',
    pharmacy: PHARMACY,
    rx_number: '1000123',
    fill_number: 1,
    patient_name: 'Jane Q. Doe',
    prescriber_name: 'Dr. Alan Smith, MD',
    formula: { name: 'Semaglutide 2.5 mg/mL injection', version: '3', preparation: 'sterile' },
    lot_number: 'L2603-01',
    quantity: { value: '2', unit: 'mL' },
    ingredients: [
      ingredient(1, {
        name: 'Semaglutide (base)',
        lot_number: 'SMG-88121',
        expires_on: '2026-11-30',
        quantity: { value: '5', unit: 'mg' },
      }),
      ingredient(2, {
        name: 'Bacteriostatic water',
        lot_number: 'BW-2211',
        expires_on: '2027-02-28',
        quantity: { value: '2', unit: 'mL' },
      }),
    ],
    compounded: { name: 'Chris Tech, CPhT', at: '2026-03-02T14:05:00.000Z' },
    checked: { name: 'Maria Kim, RPh', at: '2026-03-02T15:30:00.000Z' },
    beyond_use: {
      date: '2026-04-06',
      time: null,
      basis: {
        kind: 'standard',
        standard: 'USP <797>',
        row: 'Category 2, aseptically processed, sterile components, refrigerated',
        days: 10,
      },
    },
    storage: 'refrigerated',
    ...overrides,
  };
}

export function invoiceLine(index: number, overrides: Partial<InvoiceLine> = {}): InvoiceLine {
  return {
    order_id: `0195a3c0-0000-7000-8000-${String(index).padStart(12, '0')}`,
    partner_reference: `ACME-${index}`,
    description: 'Semaglutide 2.5 mg/mL injection',
    quantity: '1',
    amount_cents: 19_999,
    ...overrides,
  };
}

export function invoiceInput(overrides: Partial<InvoiceInput> = {}): InvoiceInput {
  return {
    generated_at: '2026-04-01T05:00:00.000Z',
    invoice_number: 'INV-2026-0007',
    status: 'issued',
    issued_on: '2026-04-01',
    due_on: '2026-05-01',
    period: { start: '2026-03-01', end: '2026-03-31' },
    issuer: { ...PHARMACY },
    bill_to: {
      clinic_id: '0195a3c0-1111-7000-8000-000000000001',
      name: 'Acme Health Clinic',
      address_lines: ['1 Main St', 'Austin, TX 78701'],
    },
    lines: [
      invoiceLine(1, { amount_cents: 19_999 }),
      invoiceLine(2, { description: 'Tirzepatide 10 mg/mL injection', quantity: '2', amount_cents: 45_001 }),
      invoiceLine(3, {
        partner_reference: null,
        description: 'Progesterone 100 mg capsules',
        quantity: '30',
        amount_cents: 3_333,
      }),
    ],
    credits: [
      {
        order_id: invoiceLine(2).order_id,
        partner_reference: 'ACME-2',
        reason: 'Replacement shipped at our cost',
        amount_cents: 1_111,
      },
    ],
    amount_paid_cents: 20_000,
    ...overrides,
  };
}

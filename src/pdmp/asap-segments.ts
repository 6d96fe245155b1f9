import {
  COMPOUND_PRODUCT_ID,
  DOSAGE_UNITS,
  GENDER,
  PATIENT_ID_QUALIFIER,
  PAYMENT_TYPE,
  PRODUCT_ID_QUALIFIER,
  REPORTING_STATUS,
  RX_ORIGIN,
  SPECIES,
  ZERO_REPORT_NAME,
} from './asap-codes.js';
import {
  asapDate,
  deaNumber,
  decimalQuantity,
  ncpdpId,
  ndc11,
  npi,
  phoneNumber,
  stateCode,
  wholeNumber,
  zipCode,
} from './asap-fields.js';
import { AsapContentError, type AsapSeparators, freeText, identifier } from './asap-text.js';
import type { ElementId, SegmentId } from './asap-versions.js';
import type { PdmpDispensing, PdmpPatient, PdmpPharmacy, PdmpPrescriber, PostalAddress } from './pdmp-report.js';

/**
 * The report's content as segments: element references to their values, whatever the version.
 * asap-writer.ts lays them out by the version's table, so a value the version has no element for
 * (PRE10 in 4.2A) is not written.
 */
export type SegmentValues = Partial<Record<ElementId, string>>;
export interface Segment {
  id: SegmentId;
  values: SegmentValues;
}

type Address5 = [line1: ElementId, line2: ElementId, city: ElementId, state: ElementId, zip: ElementId];

function address(field: string, value: PostalAddress, [l1, l2, city, state, zip]: Address5, s: AsapSeparators): SegmentValues {
  return {
    [l1]: freeText(`${field}.line1`, value.line1, s, true),
    [l2]: freeText(`${field}.line2`, value.line2, s),
    [city]: freeText(`${field}.city`, value.city, s, true),
    [state]: stateCode(`${field}.state`, value.state),
    [zip]: zipCode(`${field}.postal_code`, value.postal_code),
  };
}

/** PHA, the pharmacy header. */
export function pharmacySegment(pharmacy: PdmpPharmacy, s: AsapSeparators): Segment {
  const field = 'pharmacy';
  return {
    id: 'PHA',
    values: {
      PHA01: npi(`${field}.npi`, pharmacy.npi),
      PHA02: pharmacy.ncpdp === undefined ? '' : ncpdpId(`${field}.ncpdp`, pharmacy.ncpdp),
      PHA03: deaNumber(`${field}.dea`, pharmacy.dea),
      PHA04: freeText(`${field}.name`, pharmacy.name, s, true),
      ...address(`${field}.address`, pharmacy.address, ['PHA05', 'PHA06', 'PHA07', 'PHA08', 'PHA09'], s),
      PHA10: phoneNumber(`${field}.phone`, pharmacy.phone),
      PHA11: freeText(`${field}.contact_name`, pharmacy.contact_name, s),
      PHA13: pharmacy.permit_number === undefined ? '' : identifier(`${field}.permit_number`, pharmacy.permit_number, s, 20),
    },
  };
}

function patientSegment(field: string, patient: PdmpPatient, s: AsapSeparators): Segment {
  const veterinary = patient.species === 'veterinary';
  if (veterinary && !patient.animal_name?.trim())
    throw new AsapContentError(`${field}.animal_name`, 'is required for a veterinary patient');
  const id = patient.id;
  return {
    id: 'PAT',
    values: {
      PAT01: id?.jurisdiction === undefined ? '' : identifier(`${field}.id.jurisdiction`, id.jurisdiction, s, 2),
      PAT02: id === undefined ? '' : PATIENT_ID_QUALIFIER[id.qualifier],
      PAT03: id === undefined ? '' : identifier(`${field}.id.value`, id.value, s, 20),
      PAT07: freeText(`${field}.last_name`, patient.last_name, s, true),
      PAT08: freeText(`${field}.first_name`, patient.first_name, s, true),
      PAT09: freeText(`${field}.middle_name`, patient.middle_name, s),
      PAT10: freeText(`${field}.name_prefix`, patient.name_prefix, s),
      PAT11: freeText(`${field}.name_suffix`, patient.name_suffix, s),
      ...address(`${field}.address`, patient.address, ['PAT12', 'PAT13', 'PAT14', 'PAT15', 'PAT16'], s),
      PAT17: patient.phone === undefined ? '' : phoneNumber(`${field}.phone`, patient.phone),
      PAT18: asapDate(`${field}.birth_date`, patient.birth_date),
      PAT19: GENDER[patient.gender],
      PAT20: SPECIES[patient.species],
      PAT23: veterinary ? freeText(`${field}.animal_name`, patient.animal_name, s, true) : '',
    },
  };
}

function prescriberSegment(field: string, prescriber: PdmpPrescriber, s: AsapSeparators): Segment {
  const license = prescriber.state_license;
  return {
    id: 'PRE',
    values: {
      PRE01: npi(`${field}.npi`, prescriber.npi),
      PRE02: deaNumber(`${field}.dea`, prescriber.dea),
      PRE03: prescriber.dea_suffix === undefined ? '' : identifier(`${field}.dea_suffix`, prescriber.dea_suffix, s, 10),
      PRE04: license === undefined ? '' : identifier(`${field}.state_license.number`, license.number, s, 20),
      PRE05: freeText(`${field}.last_name`, prescriber.last_name, s, true),
      PRE06: freeText(`${field}.first_name`, prescriber.first_name, s, true),
      PRE07: freeText(`${field}.middle_name`, prescriber.middle_name, s),
      PRE08: prescriber.phone === undefined ? '' : phoneNumber(`${field}.phone`, prescriber.phone),
      PRE10: license === undefined ? '' : stateCode(`${field}.state_license.state`, license.state),
    },
  };
}

/** CDI, one per controlled ingredient of a compound, numbered from 1. */
function ingredientSegments(field: string, record: PdmpDispensing): Segment[] {
  if (record.product.type !== 'compound') return [];
  const controlled = record.product.ingredients
    .map((ingredient, i) => ({ ingredient, i }))
    .filter((x) => x.ingredient.controlled);
  if (controlled.length === 0)
    throw new AsapContentError(`${field}.product.ingredients`, 'must include the controlled ingredient');
  return controlled.map(({ ingredient, i }, sequence) => {
    const at = `${field}.product.ingredients[${i}]`;
    if (ingredient.ndc === undefined) throw new AsapContentError(`${at}.ndc`, 'is required for a controlled ingredient');
    return {
      id: 'CDI',
      values: {
        CDI01: String(sequence + 1),
        CDI02: PRODUCT_ID_QUALIFIER.ndc,
        CDI03: ndc11(`${at}.ndc`, ingredient.ndc),
        CDI04: decimalQuantity(`${at}.quantity`, ingredient.quantity),
        CDI05: DOSAGE_UNITS[ingredient.unit],
      },
    };
  });
}

function dispensingSegment(field: string, record: PdmpDispensing, s: AsapSeparators): Segment {
  const compound = record.product.type === 'compound';
  const eRx = record.electronic_prescription;
  const optionalId = (name: string, value: string | undefined, max: number): string =>
    value === undefined ? '' : identifier(`${field}.${name}`, value, s, max);
  return {
    id: 'DSP',
    values: {
      DSP01: REPORTING_STATUS[record.status],
      DSP02: identifier(`${field}.rx_number`, record.rx_number, s, 25),
      DSP03: asapDate(`${field}.written_on`, record.written_on),
      DSP04: wholeNumber(`${field}.refills_authorized`, record.refills_authorized, 0, 99),
      DSP05: asapDate(`${field}.filled_on`, record.filled_on),
      DSP06: wholeNumber(`${field}.fill_number`, record.fill_number, 0, 99),
      DSP07: compound ? PRODUCT_ID_QUALIFIER.compound : PRODUCT_ID_QUALIFIER.ndc,
      DSP08: record.product.type === 'ndc' ? ndc11(`${field}.product.ndc`, record.product.ndc) : COMPOUND_PRODUCT_ID,
      DSP09: decimalQuantity(`${field}.quantity`, record.quantity),
      DSP10: wholeNumber(`${field}.days_supply`, record.days_supply, 1, 999),
      DSP11: DOSAGE_UNITS[record.unit],
      DSP12: RX_ORIGIN[record.origin],
      DSP13: wholeNumber(`${field}.partial_fill`, record.partial_fill ?? 0, 0, 99).padStart(2, '0'),
      DSP14: record.pharmacist_npi === undefined ? '' : npi(`${field}.pharmacist_npi`, record.pharmacist_npi),
      DSP16: PAYMENT_TYPE[record.payment],
      DSP17: record.sold_on === undefined ? '' : asapDate(`${field}.sold_on`, record.sold_on),
      DSP20: optionalId('electronic_prescription.reference_number', eRx?.reference_number, 35),
      DSP21: optionalId('electronic_prescription.order_number', eRx?.order_number, 35),
      DSP22:
        record.quantity_prescribed === undefined
          ? ''
          : decimalQuantity(`${field}.quantity_prescribed`, record.quantity_prescribed),
      DSP23: freeText(`${field}.sig`, record.sig, s),
      DSP25: optionalId('diagnosis_code', record.diagnosis_code, 8),
    },
  };
}

function additionalSegment(field: string, record: PdmpDispensing, s: AsapSeparators): Segment[] {
  const air = record.additional;
  if (air === undefined) return [];
  const serial = air.rx_serial_number;
  return [
    {
      id: 'AIR',
      values: {
        AIR01: serial === undefined ? '' : stateCode(`${field}.additional.rx_serial_number.state`, serial.state),
        AIR02: serial === undefined ? '' : identifier(`${field}.additional.rx_serial_number.number`, serial.number, s, 20),
        AIR09: freeText(`${field}.additional.pharmacist_last_name`, air.pharmacist_last_name, s),
        AIR10: freeText(`${field}.additional.pharmacist_first_name`, air.pharmacist_first_name, s),
      },
    },
  ];
}

/** One dispensing's segments: PAT, DSP, PRE, a CDI per controlled ingredient, AIR when given. */
export function dispensingSegments(record: PdmpDispensing, index: number, s: AsapSeparators): Segment[] {
  const field = `records[${index}]`;
  return [
    patientSegment(`${field}.patient`, record.patient, s),
    dispensingSegment(field, record, s),
    prescriberSegment(`${field}.prescriber`, record.prescriber, s),
    ...ingredientSegments(field, record),
    ...additionalSegment(field, record, s),
  ];
}

/**
 * A zero report's detail for the day: the patient REPORT ZERO, a dispensing that carries only the
 * day (DSP05), and empty PRE, CDI and AIR, as the zero reports of parafill/asap and of PMP
 * Clearinghouse's dispenser guides ("ASAP Zero Report Specifications") lay them out.
 */
export function zeroReportSegments(day: string): Segment[] {
  return [
    { id: 'PAT', values: { PAT07: ZERO_REPORT_NAME.last, PAT08: ZERO_REPORT_NAME.first } },
    { id: 'DSP', values: { DSP01: REPORTING_STATUS.new, DSP05: asapDate('day', day) } },
    { id: 'PRE', values: {} },
    { id: 'CDI', values: {} },
    { id: 'AIR', values: {} },
  ];
}

import type { PatientTable } from '../patients/patient.tables.js';
import type { PractitionerTable } from '../practitioners/practitioner.tables.js';
import type { ErrorDetails } from '../errors.js';
import { medicationKey } from '../medications/medication-name.js';
import type { ShippingChoice } from '../shipping/shipping.repository.js';
import {
  carrierIdHint,
  priceShippingChoice,
  type ShippingQuote,
  type UnknownShippingChoice,
} from '../shipping/shipping.service.js';

/** A broken business rule: a sentence for the message and the fields it concerns. */
export interface Problem {
  message: string;
  details: ErrorDetails;
}

/** A veterinarian treats animals only, and a human practitioner humans only. */
export function checkSpecies(
  patient: Pick<PatientTable, 'species'>,
  practitioner: Pick<PractitionerTable, 'is_veterinarian'>,
): Problem | null {
  const human = patient.species === 'human';
  if (practitioner.is_veterinarian === 1 && human) {
    return {
      message: 'A veterinarian cannot prescribe for a human patient',
      details: { practitioner_id: 'is a veterinarian; the patient is human' },
    };
  }
  if (practitioner.is_veterinarian !== 1 && !human) {
    return {
      message: `A practitioner who is not a veterinarian cannot prescribe for a ${patient.species} patient`,
      details: { practitioner_id: `is not a veterinarian; the patient is ${patient.species}` },
    };
  }
  return null;
}

/** The pharmacy ships to the patient's address: it must have one. */
export function checkShippable(
  patient: Pick<PatientTable, 'address_line_1' | 'city' | 'state' | 'postal_code'>,
  field: string,
): Problem | null {
  if (patient.address_line_1 && patient.city && patient.state && patient.postal_code) return null;
  return {
    message: 'The patient has no shipping address',
    details: { [field]: 'the patient has no shipping address; add one before ordering' },
  };
}

/**
 * Prices the shipping choice read with the order's parties (order-parties.repository.ts findPartiesAndPricedShipping) for the
 * patient's state, free shipping applied, or says which id is unknown.
 */
export function checkShipping(
  choice: ShippingChoice,
  patient: { state: string | null },
  carrierId: string,
  serviceId: string,
): ShippingQuote | Problem {
  return shippingOrProblem(priceShippingChoice(choice, patient.state ?? ''), carrierId, serviceId);
}

/** A quote, or the problem of a shipping choice that names an unknown carrier or service. */
export function shippingOrProblem(
  quote: ShippingQuote | UnknownShippingChoice,
  carrierId: string,
  serviceId: string,
): ShippingQuote | Problem {
  if (!('unknown' in quote)) return quote;
  if (quote.unknown === 'carrier') {
    return {
      message: `Unknown carrier ${carrierId}`,
      details: { carrier_id: `is not a known carrier${carrierIdHint(carrierId)}; see GET /api/external/carriers` },
    };
  }
  return {
    message: `Carrier ${carrierId} has no service ${serviceId}`,
    details: { service_id: `is not a service of carrier ${carrierId}; see GET /api/external/carriers/${carrierId}/services` },
  };
}

/**
 * The order's medications that are not in the clinic's formulary (`formulary` keyed by medicationKey),
 * each named, with where to read the names an order accepts; null when every one is known.
 * `items` may come from a body that failed its schema: only the string names are checked.
 */
export function checkFormulary(items: readonly { medication: unknown }[], formulary: ReadonlySet<string>): Problem | null {
  const details: ErrorDetails = {};
  const names = new Set<string>();
  items.forEach((item, i) => {
    if (typeof item.medication !== 'string' || formulary.has(medicationKey(item.medication))) return;
    details[`medication_requests[${i}].medication`] = FORMULARY_MISS;
    names.add(item.medication.trim());
  });
  if (names.size === 0) return null;
  return { message: `Not in the clinic\u2019s formulary: ${[...names].join(', ')}`, details };
}

/** A formulary miss says where the names an order accepts are listed: no guessing, no support ticket. */
const FORMULARY_MISS = 'is not in the clinic\u2019s formulary; see GET /api/external/medications';

import { notFoundIn } from '../audit/denied-access.js';
import type { Environment } from '../config.js';
import { isLicensed } from './licensed-states.js';
import { licenceOfRow } from './licensed-states.repository.js';
import type { ReadContext } from '../context.js';
import { AppError, notFound } from '../errors.js';
import { stateName } from '../reference/us-states.js';
import { centsToDollars } from '../shared/money.js';
import { quotePrice, type FreeShipmentType } from './pricing.js';
import * as repo from './shipping.repository.js';
import type { ShippingChoice } from './shipping.repository.js';

/** The price of one carrier service for one clinic and destination state, in cents. */
export interface ShippingQuote {
  carrierId: string;
  carrierName: string;
  serviceId: string;
  serviceName: string;
  /** The service's price for the state (the state's own price, else the base price). */
  originalCents: number;
  /** What the clinic pays: 0 with free shipping, else originalCents. */
  totalCents: number;
  freeShipmentType: FreeShipmentType | null;
  /** The operator marked the service as keeping a refrigerated order cold (docs/shipping.md#cold-chain). */
  coldChainEligible: boolean;
}

/** Which id of a shipping choice names nothing: the carrier, or the carrier's service. */
export interface UnknownShippingChoice {
  unknown: 'carrier' | 'service';
}

/**
 * Prices a shipping choice read with its clinic's free shipping and the service's own price for
 * `stateCode` (an order's checks read it in one query: orders/order-parties.repository.ts findPartiesAndPricedShipping), or says which id is
 * unknown.
 */
export function priceShippingChoice(choice: ShippingChoice, stateCode: string): ShippingQuote | UnknownShippingChoice {
  if (choice.carrier_id === null || choice.carrier_name === null) return { unknown: 'carrier' };
  if (choice.service_id === null || choice.service_name === null || choice.price_cents === null) return { unknown: 'service' };
  const price = quotePrice(
    {
      priceCents: choice.price_cents,
      statePrices: choice.state_price_cents === null ? {} : { [stateCode]: choice.state_price_cents },
    },
    stateCode,
    choice.free_shipping === 1,
  );
  return {
    carrierId: choice.carrier_id,
    carrierName: choice.carrier_name,
    serviceId: choice.service_id,
    serviceName: choice.service_name,
    ...price,
    coldChainEligible: choice.cold_chain_eligible === 1,
  };
}

/** The partner's carrier list (the spec's `{id, name}`). */
export async function listPartnerCarriers(ctx: ReadContext): Promise<{ id: string; name: string }[]> {
  return (await repo.listCarriers(ctx.db)).map((c) => ({ id: c.id, name: c.name }));
}

export interface PatientShippingOptions {
  data: { id: string; name: string; totalCost: number; originalCost: number; cold_chain_eligible: boolean }[];
  isFreeShipment: boolean;
  freeShipmentType: FreeShipmentType | null;
  patientState: string;
  licensed: boolean;
}

/**
 * The services of one carrier, priced for the state of one of the clinic's patients
 * (GET /api/external/carriers/{carrierId}/services), and whether the pharmacy may ship there.
 * Another clinic's patient is not found.
 */
export async function listServicesForPatient(
  ctx: ReadContext,
  clinicId: string,
  carrierId: string,
  patientId: string,
  env: Environment,
): Promise<PatientShippingOptions> {
  const rows = await repo.findCarrierServicesForPatient(ctx.db, clinicId, carrierId, patientId);
  const first = rows[0];
  if (!first) throw notFound('Clinic not found');
  if (first.carrier_id === null) throw notFound(`Carrier not found${carrierIdHint(carrierId)}`);
  if (first.patient_id === null) throw notFoundIn({ type: 'patient', id: patientId }, 'Patient not found');
  const code = first.state?.trim().toUpperCase() ?? '';
  const fullName = code === '' ? undefined : stateName(code);
  if (fullName === undefined) {
    throw new AppError(
      'VALIDATION_ERROR',
      400,
      'Patient has no shipping address: shipping prices depend on the state of the patient\u2019s address',
      { 'patient.addresses': 'the patient has no address with a US state' },
    );
  }
  const free = first.free_shipping === 1;
  const data = rows.flatMap((service) => {
    if (service.service_id === null || service.service_name === null || service.price_cents === null) return [];
    const statePrices = service.state_price_cents === null ? {} : { [code]: service.state_price_cents };
    const quote = quotePrice({ priceCents: service.price_cents, statePrices }, code, free);
    return [
      {
        id: service.service_id,
        name: service.service_name,
        totalCost: centsToDollars(quote.totalCents),
        originalCost: centsToDollars(quote.originalCents),
        cold_chain_eligible: service.cold_chain_eligible === 1,
      },
    ];
  });
  const licensed = isLicensed(code, licenceOfRow(first), env);
  return { data, isFreeShipment: free, freeShipmentType: free ? 'clinic_specific' : null, patientState: fullName, licensed };
}

/**
 * What to add when a carrier id is not found: ids are lower case (`fedex`, not `FedEx`, the name
 * GET /api/external/carriers shows beside it), so an id with capitals gets the id it likely meant.
 */
export function carrierIdHint(carrierId: string): string {
  const lower = carrierId.toLowerCase();
  return lower === carrierId ? '' : `: carrier ids are lower case (${lower})`;
}

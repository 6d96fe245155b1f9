/**
 * Shipping prices, without I/O, in integer cents (shared/money.ts converts to the dollars of the wire).
 */

/** Why shipping is free for a patient; `clinic_specific` is the spec's one known value. */
export type FreeShipmentType = 'clinic_specific';

export interface ServicePrice {
  /** The service's base price, in cents. */
  priceCents: number;
  /** State code → price in cents, overriding the base price for patients in that state. */
  statePrices: Readonly<Record<string, number>>;
}

export interface PriceQuote {
  originalCents: number;
  totalCents: number;
  freeShipmentType: FreeShipmentType | null;
}

/** The service's price for a destination state: the state's own price if it has one, else the base price. */
export function priceForState(service: ServicePrice, stateCode: string): number {
  const code = stateCode.trim().toUpperCase();
  return Object.hasOwn(service.statePrices, code) ? (service.statePrices[code] as number) : service.priceCents;
}

/**
 * What a clinic pays to ship one order: the state price, or 0 when the clinic has free shipping
 * (the original price is kept, as the spec's `originalCost`).
 */
export function quotePrice(service: ServicePrice, stateCode: string, clinicFreeShipping: boolean): PriceQuote {
  const originalCents = priceForState(service, stateCode);
  return clinicFreeShipping
    ? { originalCents, totalCents: 0, freeShipmentType: 'clinic_specific' }
    : { originalCents, totalCents: originalCents, freeShipmentType: null };
}

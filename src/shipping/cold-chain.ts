import type { ShippingServiceTable } from './shipping.tables.js';

/*
 * Cold chain (docs/shipping.md#cold-chain): a refrigerated order (`is_refrigerated`) on a service the
 * operator has not marked `cold_chain_eligible` is accepted with a warning (COLD_CHAIN_POLICY=warn,
 * the default: the original system's own examples ship refrigerated on FedEx Ground) or refused
 * (COLD_CHAIN_POLICY=refuse). Without I/O: the order's checks read the flag with the service's price.
 */

/** The service an order chose, as its cold-chain check names it. */
export interface ChosenService {
  carrierId: string;
  carrierName: string;
  serviceId: string;
  serviceName: string;
  coldChainEligible: boolean;
}

/** A service to name in a refusal. */
export type EligibleService = Pick<ShippingServiceTable, 'carrier_id' | 'id' | 'name'>;

/** Whether the order is refrigerated on a service that is not cold-chain eligible. */
export const needsColdChain = (isRefrigerated: boolean | undefined, service: ChosenService): boolean =>
  isRefrigerated === true && !service.coldChainEligible;

/** The warning of an accepted order (`data.warnings` of its POST answer). */
export function coldChainWarning(service: ChosenService): string {
  return (
    `The order is refrigerated, but service ${service.serviceName} (${service.serviceId}) of ${service.carrierName} is not ` +
    `cold-chain eligible: it may not keep the order cold. Cold-chain eligible services are marked in ` +
    `GET /api/external/carriers/${service.carrierId}/services.`
  );
}

/**
 * The refusal's sentence and `service_id`'s problem: the eligible services of the order's carrier, or
 * of every carrier when it has none (`carrier_id/service_id` then), or that none is.
 */
export function coldChainRefusal(
  service: ChosenService,
  eligible: readonly EligibleService[],
): { message: string; details: Record<string, string> } {
  const own = eligible.every((s) => s.carrier_id === service.carrierId);
  const names = eligible.map((s) => (own ? `${s.id} (${s.name})` : `${s.carrier_id}/${s.id} (${s.name})`)).join(', ');
  const choice =
    eligible.length === 0
      ? 'no service is cold-chain eligible yet: ask the pharmacy'
      : own
        ? `cold-chain eligible services of ${service.carrierId}: ${names}`
        : `${service.carrierId} has no cold-chain eligible service; eligible services (carrier_id/service_id): ${names}`;
  return {
    message: `A refrigerated order needs a cold-chain eligible service: ${service.serviceId} is not (${choice})`,
    details: { service_id: `is not cold-chain eligible, and the order is refrigerated; ${choice}` },
  };
}

import { Type } from '@sinclair/typebox';
import { Uuid } from '../contracts/schemas.js';

/*
 * The two partner carrier responses have the spec's exact shapes: `{success, data}` without
 * `message`, and the services response adds isFreeShipment, freeShipmentType and patientState
 * beside `data`. (Our other responses all carry `message`; these follow the spec instead.)
 */

export const Carrier = Type.Object(
  {
    id: Type.String({ description: 'Opaque carrier id: the `carrier_id` of a medication order.' }),
    name: Type.String({ description: 'Display name.' }),
  },
  { $id: 'Carrier', additionalProperties: false },
);

export const CarriersResponse = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({ carriers: Type.Array(Carrier) }, { additionalProperties: false }),
  },
  { $id: 'CarrierListResponse', additionalProperties: false },
);

export const ShippingService = Type.Object(
  {
    id: Type.String({ description: 'Opaque service id: the `service_id` of a medication order.' }),
    name: Type.String({ description: 'Display name.' }),
    totalCost: Type.Number({
      description: 'US dollars charged (at most two decimals): 0 when free shipping applies, else originalCost.',
    }),
    originalCost: Type.Number({
      description: 'The service\u2019s price in US dollars (0 to 100000, at most two decimals) for the patient\u2019s state.',
    }),
    cold_chain_eligible: Type.Boolean({
      description:
        'The pharmacy ships refrigerated orders (`is_refrigerated`) cold on this service. A refrigerated order on a service without it is accepted with a warning, or refused where the pharmacy says so (docs/shipping.md#cold-chain).',
    }),
  },
  { $id: 'ShippingService', additionalProperties: false },
);

export const CarrierServicesResponse = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(ShippingService),
    isFreeShipment: Type.Boolean({ description: 'Whether free shipping applies for this patient.' }),
    freeShipmentType: Type.Union([Type.Literal('clinic_specific'), Type.Null()], {
      description: 'Why shipping is free (`clinic_specific`: the clinic ships free); null when it is not.',
    }),
    patientState: Type.String({ description: 'Full name of the state of the patient\u2019s address (e.g. `California`).' }),
    licensed: Type.Boolean({
      description:
        'Whether the pharmacy may ship to the patient\u2019s state (GET /api/external/licensed-states). When false, an order for this patient is refused with 400 `STATE_NOT_LICENSED`: route it to another pharmacy. It names no medication: a formulary entry\u2019s `restricted_states` (GET /api/external/medications) is checked at intake only.',
    }),
  },
  { $id: 'CarrierServiceListResponse', additionalProperties: false },
);

/** Any string: an id that is not in the catalogue is a 404, whatever it looks like. */
export const CarrierParams = Type.Object({
  carrierId: Type.String({ minLength: 1, maxLength: 200, description: 'A carrier id from GET /api/external/carriers.' }),
});

export const CarrierServicesQuery = Type.Object({
  patientId: Uuid('The patient the order ships to: their address\u2019s state sets the prices.'),
});

import { Type, type Static } from '@sinclair/typebox';
import { OpaqueId, Text, Timestamp } from '../contracts/schemas.js';

/* The operator's carrier catalogue: carriers, services, base and per-state prices. */

/** Money in requests: US dollars as a JSON number, 0 to 100000, with at most two decimals (stored as integer cents). */
const Price = (description: string) =>
  Type.Number({
    minimum: 0,
    maximum: 100_000,
    'x-decimal-places': 2,
    description: `${description} US dollars from 0 to 100000 with at most two decimals (32.44; 1.234 and 5e-324 are refused).`,
  });
const STATE_PRICES_DOC = 'Two-letter state code → price, overriding `price` for patients in that state: `{"AK": 58.99}`.';
const COLD_CHAIN_DOC =
  'The service keeps a refrigerated order cold; partners see it in the services list, and a refrigerated order on a service without it gets a warning or, with COLD_CHAIN_POLICY=refuse, a 400 (docs/shipping.md#cold-chain).';
const StatePrices = (description = STATE_PRICES_DOC) =>
  Type.Record(Type.String(), Price('Price for patients in this state:'), { maxProperties: 60, description });

export const CatalogueService = Type.Object(
  {
    carrier_id: Type.String(),
    id: Type.String(),
    name: Type.String(),
    price: Type.Number({ description: 'Base price, US dollars.' }),
    state_prices: Type.Record(Type.String(), Type.Number(), { description: 'State code → price, US dollars.' }),
    cold_chain_eligible: Type.Boolean({ description: COLD_CHAIN_DOC }),
    created_at: Timestamp,
  },
  { additionalProperties: false },
);
export type CatalogueServiceView = Static<typeof CatalogueService>;
export const CatalogueCarrier = Type.Object(
  { id: Type.String(), name: Type.String(), created_at: Timestamp, services: Type.Array(CatalogueService) },
  { additionalProperties: false },
);
export type CatalogueCarrierView = Static<typeof CatalogueCarrier>;
export const CreateCarrierBody = Type.Object(
  {
    id: Type.Optional(
      OpaqueId('Opaque id partners send as `carrier_id`; derived from the name when omitted (`Stamps.com` → `stamps_com`).'),
    ),
    name: Text(100, { description: 'Display name.' }),
  },
  { additionalProperties: false },
);
export const CreateServiceBody = Type.Object(
  {
    id: Type.Optional(OpaqueId('Opaque id partners send as `service_id`; derived from the name when omitted.')),
    name: Text(100, { description: 'Display name.' }),
    price: Price('Base price:'),
    state_prices: Type.Optional(StatePrices()),
    cold_chain_eligible: Type.Optional(Type.Boolean({ description: `${COLD_CHAIN_DOC} Default false.` })),
  },
  { additionalProperties: false },
);
export const UpdateServiceBody = Type.Object(
  {
    name: Type.Optional(Text(100, { description: 'Display name.' })),
    price: Type.Optional(Price('Base price:')),
    state_prices: Type.Optional(StatePrices(`${STATE_PRICES_DOC} Replaces the whole set; \`{}\` removes them all.`)),
    cold_chain_eligible: Type.Optional(Type.Boolean({ description: COLD_CHAIN_DOC })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    'x-message': 'must change at least one of name, price, state_prices, cold_chain_eligible',
  },
);

/* Path parameters of the operator's carrier routes (shipping/carrier.operator-routes.ts). */
export const CatalogueCarrierParams = Type.Object({
  carrierId: Type.String({ minLength: 1, maxLength: 200, description: 'The carrier\u2019s id.' }),
});
export const CatalogueServiceParams = Type.Object({
  carrierId: Type.String({ minLength: 1, maxLength: 200, description: 'The carrier\u2019s id.' }),
  serviceId: Type.String({ minLength: 1, maxLength: 200, description: 'The service\u2019s id.' }),
});

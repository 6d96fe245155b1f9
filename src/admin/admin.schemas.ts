import { Type } from '@sinclair/typebox';
import { adminErrors, conflictError, OpaqueId, Text, Uuid } from '../http/schemas.js';

/* Schemas of the operator API (/api/admin): request bodies are strict, responses are allow-lists. */

const Timestamp = Type.String({ description: 'ISO-8601 UTC.' });
const Environment = (description?: string) =>
  Type.Union([Type.Literal('development'), Type.Literal('production')], description ? { description } : {});
const NullableText = Type.Union([Type.String(), Type.Null()]);

export const operatorSecurity = [{ operatorToken: [] }];
export { adminErrors, conflictError };

export const ClinicParams = Type.Object({ clinicId: Uuid('The clinic\u2019s id.') });
export const ApiKeyParams = Type.Object({ apiKeyId: Uuid('The API key\u2019s id (not the key).') });
export const MedicationParams = Type.Object({ clinicId: Uuid('The clinic\u2019s id.'), medicationId: Uuid('The medication\u2019s id.') });
export const CarrierParams = Type.Object({ carrierId: Type.String({ minLength: 1, maxLength: 200, description: 'The carrier\u2019s id.' }) });
export const ServiceParams = Type.Object({
  carrierId: Type.String({ minLength: 1, maxLength: 200, description: 'The carrier\u2019s id.' }),
  serviceId: Type.String({ minLength: 1, maxLength: 200, description: 'The service\u2019s id.' }),
});

export const Clinic = Type.Object(
  { clinic_id: Uuid(), name: Type.String(), free_shipping: Type.Boolean(), created_at: Timestamp },
  { additionalProperties: false },
);
export const CreateClinicBody = Type.Object(
  {
    name: Text(200, { description: 'The clinic\u2019s display name.' }),
    free_shipping: Type.Optional(Type.Boolean({ description: 'Ships every order free (default false).' })),
  },
  { additionalProperties: false },
);
export const FreeShippingBody = Type.Object(
  { free_shipping: Type.Boolean({ description: 'true: every order of the clinic ships free (`clinic_specific`).' }) },
  { additionalProperties: false },
);

export const IssueApiKeyBody = Type.Object(
  { environment: Type.Optional(Environment('Defaults to the server\u2019s environment.')) },
  { additionalProperties: false },
);
export const IssuedApiKey = Type.Object(
  {
    api_key_id: Uuid(),
    api_key: Type.String({ description: 'The key itself: shown this once, stored only as a hash.' }),
    clinic_id: Uuid(),
    environment: Environment(),
    key_prefix: Type.String({ description: 'What later listings show of the key.' }),
    created_at: Timestamp,
  },
  { additionalProperties: false },
);
export const ApiKeySummary = Type.Object(
  {
    api_key_id: Uuid(),
    environment: Type.String(),
    key_prefix: Type.String(),
    created_at: Timestamp,
    revoked_at: Type.Union([Timestamp, Type.Null()]),
  },
  { additionalProperties: false },
);
export const RevokedApiKey = Type.Object({ api_key_id: Uuid(), revoked_at: Timestamp }, { additionalProperties: false });

export const Medication = Type.Object(
  {
    medication_id: Uuid(),
    clinic_id: Uuid(),
    name: Type.String(),
    strength: NullableText,
    dosage_form: NullableText,
    created_at: Timestamp,
  },
  { additionalProperties: false },
);
export const AddMedicationBody = Type.Object(
  {
    name: Text(200, { description: 'The name orders use (matched ignoring case and extra spaces).' }),
    strength: Type.Optional(Text(100, { description: 'e.g. `2.5 mg/mL`.' })),
    dosage_form: Type.Optional(Text(100, { description: 'e.g. `injectable solution`.' })),
  },
  { additionalProperties: false },
);

const Price = (description: string) =>
  Type.Number({
    minimum: 0,
    maximum: 100_000,
    description: `${description} US dollars with at most two decimals (32.44).`,
  });
const STATE_PRICES_DOC = 'Two-letter state code → price, overriding `price` for patients in that state: `{"AK": 58.99}`.';
const StatePrices = (description = STATE_PRICES_DOC) =>
  Type.Record(Type.String(), Price('Price for patients in this state:'), { maxProperties: 60, description });

export const CatalogueService = Type.Object(
  {
    carrier_id: Type.String(),
    id: Type.String(),
    name: Type.String(),
    price: Type.Number({ description: 'Base price, US dollars.' }),
    state_prices: Type.Record(Type.String(), Type.Number(), { description: 'State code → price, US dollars.' }),
    created_at: Timestamp,
  },
  { additionalProperties: false },
);
export const CatalogueCarrier = Type.Object(
  { id: Type.String(), name: Type.String(), created_at: Timestamp, services: Type.Array(CatalogueService) },
  { additionalProperties: false },
);
export const CreateCarrierBody = Type.Object(
  {
    id: Type.Optional(OpaqueId('Opaque id partners send as `carrier_id`; derived from the name when omitted (`Stamps.com` → `stamps_com`).')),
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
  },
  { additionalProperties: false },
);
export const UpdateServiceBody = Type.Object(
  {
    name: Type.Optional(Text(100, { description: 'Display name.' })),
    price: Type.Optional(Price('Base price:')),
    state_prices: Type.Optional(StatePrices(`${STATE_PRICES_DOC} Replaces the whole set; \`{}\` removes them all.`)),
  },
  { additionalProperties: false, minProperties: 1, 'x-message': 'must change at least one of name, price, state_prices' },
);

/** Error responses of operator routes that create something with a unique name or id. */
export const createErrors = (what: string) => ({ ...adminErrors, ...conflictError(`${what} already exists.`) });

import { Type, type Static } from '@sinclair/typebox';
import { Text, Timestamp, Uuid } from '../http/schemas.js';

/* Clinics and their API keys as the operator sees them (request bodies strict, responses allow-lists). */

export const ClinicParams = Type.Object({ clinicId: Uuid('The clinic\u2019s id.') });
export const ApiKeyParams = Type.Object({ apiKeyId: Uuid('The API key\u2019s id (not the key).') });
export const MedicationParams = Type.Object({
  clinicId: Uuid('The clinic\u2019s id.'),
  medicationId: Uuid('The medication\u2019s id.'),
});

const Environment = (description?: string) =>
  Type.Union([Type.Literal('development'), Type.Literal('production')], description ? { description } : {});
export const Clinic = Type.Object(
  { clinic_id: Uuid(), name: Type.String(), free_shipping: Type.Boolean(), created_at: Timestamp },
  { additionalProperties: false },
);
export type ClinicView = Static<typeof Clinic>;
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
export type IssuedApiKeyView = Static<typeof IssuedApiKey>;
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
export type ApiKeySummaryView = Static<typeof ApiKeySummary>;
export const RevokedApiKey = Type.Object({ api_key_id: Uuid(), revoked_at: Timestamp }, { additionalProperties: false });
export type RevokedApiKeyView = Static<typeof RevokedApiKey>;

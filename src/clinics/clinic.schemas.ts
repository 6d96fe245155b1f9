import { Type, type Static } from '@sinclair/typebox';
import { NameText, Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import { MAX_KEY_LIFETIME_SECONDS, MAX_ROLL_OVERLAP_SECONDS } from './api-key.js';
import { ALL_SCOPES, type Scope } from './scopes.js';

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
    name: NameText(200, { description: 'The clinic\u2019s display name.' }),
    free_shipping: Type.Optional(Type.Boolean({ description: 'Ships every order free (default false).' })),
  },
  { additionalProperties: false },
);
export const FreeShippingBody = Type.Object(
  { free_shipping: Type.Boolean({ description: 'true: every order of the clinic ships free (`clinic_specific`).' }) },
  { additionalProperties: false },
);

/** A scope of a restricted key: `<resource>:read` or `<resource>:write` (clinics/scopes.ts). */
const ScopeName = Type.Unsafe<Scope>({ type: 'string', enum: [...ALL_SCOPES] });
const Scopes = (description: string) => Nullable(Type.Array(ScopeName), { description });
const KEY_SCOPES =
  'What the key may do: `<resource>:read` or `<resource>:write` (write implies read); null: full access (a key issued without scopes).';

export const IssueApiKeyBody = Type.Object(
  {
    environment: Type.Optional(Environment('Defaults to the server\u2019s environment.')),
    scopes: Type.Optional(
      Type.Array(ScopeName, {
        minItems: 1,
        maxItems: ALL_SCOPES.length,
        description: `A restricted key: what it may do, among ${ALL_SCOPES.join(', ')} (write implies read). Leave out for a key with full access; an empty list is refused.`,
      }),
    ),
    expires_in_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_KEY_LIFETIME_SECONDS,
        description:
          'The key stops working this many seconds from now (at most 10 years). Leave out for a key that does not expire.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** What the operator sees of a key, the secret aside. */
const keyFields = {
  api_key_id: Uuid(),
  environment: Environment(),
  key_prefix: Type.String({ description: 'The key\u2019s first characters, to recognise it (`dev_AbC123`).' }),
  key_last4: Nullable(Type.String(), {
    description: 'The key\u2019s last four characters; null for a key issued before they were kept.',
  }),
  scopes: Scopes(KEY_SCOPES),
  created_at: Timestamp,
  expires_at: Nullable(Timestamp, { description: 'When the key stops working (401 "API key has expired"); null: never.' }),
  last_used_at: Nullable(Timestamp, {
    description: 'When the key was last accepted, to the minute (written at most once a minute); null: never used.',
  }),
};

export const IssuedApiKey = Type.Object(
  {
    ...keyFields,
    api_key: Type.String({ description: 'The key itself: shown this once, stored only as a hash.' }),
    clinic_id: Uuid(),
  },
  { additionalProperties: false },
);
export type IssuedApiKeyView = Static<typeof IssuedApiKey>;
export const ApiKeySummary = Type.Object(
  { ...keyFields, revoked_at: Nullable(Timestamp, { description: 'When the key was revoked; null: not revoked.' }) },
  { additionalProperties: false },
);
export type ApiKeySummaryView = Static<typeof ApiKeySummary>;

export const RollApiKeyBody = Type.Object(
  {
    expires_in_seconds: Type.Integer({
      minimum: 0,
      maximum: MAX_ROLL_OVERLAP_SECONDS,
      description:
        'How long the old key keeps working beside its successor: 0 (it stops now) to 604800 (7 days). An expiry the old key already had is never pushed later.',
    }),
  },
  { additionalProperties: false },
);
export const RolledApiKey = Type.Object(
  {
    ...IssuedApiKey.properties,
    previous_key: Type.Object(
      {
        api_key_id: Uuid('The key that was rolled.'),
        expires_at: Timestamp,
      },
      { additionalProperties: false, description: 'The rolled key: it works until `expires_at`, then gets 401.' },
    ),
  },
  { additionalProperties: false },
);
export type RolledApiKeyView = Static<typeof RolledApiKey>;
export const RevokedApiKey = Type.Object({ api_key_id: Uuid(), revoked_at: Timestamp }, { additionalProperties: false });
export type RevokedApiKeyView = Static<typeof RevokedApiKey>;

import { Type, type Static } from '@sinclair/typebox';
import { ApiKeySummary } from '../clinics/clinic.schemas.js';
import { ALL_SCOPES, type Scope } from '../clinics/scopes.js';
import { Timestamp, Uuid } from '../contracts/schemas.js';

/* The portal's API keys (docs/portal.md): the operator's key view, the secret apart from it. */

/** The longest a rolled key keeps working beside its successor, in hours (7 days). */
export const MAX_ROLL_OVERLAP_HOURS = 168;

const ScopeName = Type.Unsafe<Scope>({ type: 'string', enum: [...ALL_SCOPES] });

export const CreatePortalApiKeyBody = Type.Object(
  {
    scopes: Type.Optional(
      Type.Array(ScopeName, {
        minItems: 1,
        maxItems: ALL_SCOPES.length,
        description: `A restricted key: what it may do, among ${ALL_SCOPES.join(', ')} (write implies read). Leave out for full access.`,
      }),
    ),
    expires_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When the key stops working (ISO-8601; in the future, at most 10 years away). Leave out for no expiry.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreatePortalApiKeyBody = Static<typeof CreatePortalApiKeyBody>;

export const RollPortalApiKeyBody = Type.Object(
  {
    expires_in_hours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_ROLL_OVERLAP_HOURS,
        default: 24,
        description:
          'How long the old key keeps working beside its successor: 0 (it stops now) to 168 hours (default 24). An expiry it already had is never pushed later.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PortalApiKeyParams = Type.Object({ apiKeyId: Uuid('The API key\u2019s id (not the key).') });

export const PortalApiKeyList = Type.Object({ api_keys: Type.Array(ApiKeySummary) }, { additionalProperties: false });

const secret = Type.String({ description: 'The key itself: shown this once, stored only as a hash. Send it as `x-api-key`.' });

export const PortalIssuedApiKey = Type.Object({ api_key: ApiKeySummary, secret }, { additionalProperties: false });
export type PortalIssuedApiKeyView = Static<typeof PortalIssuedApiKey>;

export const PortalRolledApiKey = Type.Object(
  {
    api_key: ApiKeySummary,
    secret,
    previous_key: Type.Object(
      { api_key_id: Uuid('The key that was rolled.'), expires_at: Timestamp },
      { additionalProperties: false, description: 'The rolled key: it works until `expires_at`, then gets 401.' },
    ),
  },
  { additionalProperties: false },
);
export type PortalRolledApiKeyView = Static<typeof PortalRolledApiKey>;

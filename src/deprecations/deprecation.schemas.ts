import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../contracts/schemas.js';

export const DeprecationUse = Type.Object(
  {
    credential_type: Type.Union([Type.Literal('api_key'), Type.Literal('oauth_client')], {
      description: 'What `credential_id` names: an API key or an OAuth client.',
    }),
    credential_id: Type.String({ description: 'The API key id (as in the clinic\u2019s key list) or the OAuth client id.' }),
    clinic_id: Type.String(),
    count: Type.Integer({ description: 'Uses counted by every instance together (written every minute or so).' }),
    first_seen_at: Timestamp,
    last_seen_at: Timestamp,
  },
  { additionalProperties: false },
);

export const Deprecation = Type.Object(
  {
    code: Type.String({ description: 'The registry\u2019s code.' }),
    kind: Type.Union([Type.Literal('route'), Type.Literal('parameter'), Type.Literal('field')]),
    method: Type.String(),
    route: Type.String({ description: 'The route pattern (Fastify\u2019s `:param` form).' }),
    name: Nullable(Type.String(), { description: 'The parameter or field; null for a route.' }),
    deprecated_at: Type.String({ format: 'date' }),
    sunset_at: Type.String({ format: 'date', description: 'The day it stops working.' }),
    link: Type.String({ description: 'The migration guide (the `Link` header\u2019s target).' }),
    replacement: Type.String(),
    total_count: Type.Integer({ description: 'Uses by every credential together.' }),
    usage: Type.Array(DeprecationUse, { description: 'Per credential, the most recently seen first.' }),
  },
  { additionalProperties: false },
);

export type DeprecationView = Static<typeof Deprecation>;
export type DeprecationUseView = Static<typeof DeprecationUse>;

export const DeprecationList = Type.Object({ deprecations: Type.Array(Deprecation) }, { additionalProperties: false });

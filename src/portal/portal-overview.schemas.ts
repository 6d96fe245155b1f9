import { Type, type Static } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../contracts/schemas.js';

/* The portal's overview (docs/portal.md): where the clinic stands, at a glance. */

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const PortalOverview = Type.Object(
  {
    environment: Type.Union([Type.Literal('development'), Type.Literal('production')], {
      description: 'This server\u2019s environment: its keys start `dev_` or `prod_`.',
    }),
    clinic_id: Uuid(),
    clinic_name: Type.String(),
    rate_limit: Type.Object(
      {
        limit: Count('Requests each credential (API key or OAuth client) may make per minute.'),
        used: Count('Requests of this minute by the clinic\u2019s busiest credential: the one nearest its limit.'),
        resets_at: Timestamp,
        credentials: Type.Array(
          Type.Object(
            {
              kind: Type.Union([Type.Literal('api_key'), Type.Literal('oauth_client')]),
              id: Type.String({ description: 'The API key\u2019s id or the OAuth client\u2019s `client_id`.' }),
              used: Count('Its requests of this minute.'),
            },
            { additionalProperties: false },
          ),
          { description: 'Each working credential of the clinic with its use of the minute, busiest first.' },
        ),
      },
      {
        additionalProperties: false,
        description: 'This calendar minute\u2019s use of the partner API\u2019s rate limit, counted per credential.',
      },
    ),
    fhir_base_url: Type.String({
      format: 'uri',
      description:
        'The FHIR R4 API\u2019s base address (docs/fhir.md): `<base>/fhir/R4`, the same credentials as the partner API.',
    }),
    smart_configuration_url: Type.String({
      format: 'uri',
      description:
        'Where a FHIR client discovers the token endpoint and the SMART scopes: the FHIR base URL followed by `/.well-known/smart-configuration`.',
    }),
    requests_24h: Count('Requests of the last 24 hours in the request log (refusals before a key was accepted are not).'),
    errors_24h: Type.Array(
      Type.Object(
        { code: Type.String({ description: 'The error\u2019s `code` (docs/errors.md).' }), count: Count('How many.') },
        { additionalProperties: false },
      ),
      { description: 'The error answers of the last 24 hours by code, most frequent first.' },
    ),
  },
  { additionalProperties: false },
);
export type PortalOverviewView = Static<typeof PortalOverview>;

import { Type, type Static } from '@sinclair/typebox';
import { ALL_SCOPES, type Scope } from '../clinics/scopes.js';
import { Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS } from './access-token.js';
import { MAX_JWKS_KEYS } from './jwks.js';
import { OAUTH_ERROR_CODES } from './oauth-errors.js';

/* OAuth clients as the operator sees them, and the token endpoint's form and answers (RFC 6749). */

export const OAuthClientParams = Type.Object({ clientId: Uuid('The client\u2019s `client_id`.') });

const ScopeName = Type.Unsafe<Scope>({ type: 'string', enum: [...ALL_SCOPES] });
const Environment = (description?: string) =>
  Type.Union([Type.Literal('development'), Type.Literal('production')], description ? { description } : {});
const AuthMethod = Type.Union([Type.Literal('client_secret_basic'), Type.Literal('private_key_jwt')], {
  description:
    'How the client authenticates at POST /oauth/token: with its secret (`client_secret_basic`: HTTP Basic, or `client_secret` in the body), or with a JWT signed by one of its registered keys (`private_key_jwt`, RFC 7523).',
});

export const CreateOAuthClientBody = Type.Object(
  {
    scopes: Type.Array(ScopeName, {
      minItems: 1,
      maxItems: ALL_SCOPES.length,
      uniqueItems: true,
      description: `What the client\u2019s access tokens may do, among ${ALL_SCOPES.join(', ')} (write implies read). Required: a client always names its scopes.`,
    }),
    environment: Type.Optional(Environment('Defaults to the server\u2019s environment.')),
    jwks: Type.Optional(
      Type.Object(
        {
          keys: Type.Array(Type.Object({}, { additionalProperties: true, description: 'A public JWK (RSA, EC or OKP).' }), {
            minItems: 1,
            maxItems: MAX_JWKS_KEYS,
          }),
        },
        {
          additionalProperties: false,
          description:
            'The client\u2019s public keys (a JWK Set): the client then authenticates with private_key_jwt (RFC 7523) and gets no secret.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CreateOAuthClientInput = Static<typeof CreateOAuthClientBody>;

const clientFields = {
  client_id: Uuid('The client\u2019s id: not a secret, sent with every token request.'),
  clinic_id: Uuid(),
  environment: Environment(),
  scopes: Type.Array(ScopeName, { description: 'What the client\u2019s access tokens may do.' }),
  token_endpoint_auth_method: AuthMethod,
  created_at: Timestamp,
};

export const IssuedOAuthClient = Type.Object(
  {
    ...clientFields,
    client_secret: Nullable(Type.String(), {
      description:
        'The secret itself (`cs_dev_…` or `cs_prod_…`): shown this once, stored only as a hash. Null for a private_key_jwt client.',
    }),
  },
  { additionalProperties: false },
);
export type IssuedOAuthClientView = Static<typeof IssuedOAuthClient>;

export const OAuthClientSummary = Type.Object(
  { ...clientFields, revoked_at: Nullable(Timestamp, { description: 'When the client was revoked; null: not revoked.' }) },
  { additionalProperties: false },
);
export type OAuthClientSummaryView = Static<typeof OAuthClientSummary>;

export const RevokedOAuthClient = Type.Object({ client_id: Uuid(), revoked_at: Timestamp }, { additionalProperties: false });
export type RevokedOAuthClientView = Static<typeof RevokedOAuthClient>;

/** The token request's form fields (RFC 6749 §4.4.2, §2.3.1; RFC 7523 §2.2). Unknown fields are ignored, as RFC 6749 §3.2 says. */
export const TokenRequestBody = Type.Object(
  {
    grant_type: Type.Optional(Type.String({ description: '`client_credentials`, the only grant.' })),
    scope: Type.Optional(
      Type.String({
        description:
          'Space-separated scopes: a subset of the client\u2019s (default: all of them), or SMART backend services\u2019 read scopes for the FHIR API (`system/Patient.rs`, `system/*.rs`; v1\u2019s `system/Patient.read`), each granted as the scope of ours that reads its resource type (docs/oauth.md).',
      }),
    ),
    client_id: Type.Optional(Type.String({ description: 'With `client_secret`, instead of HTTP Basic.' })),
    client_secret: Type.Optional(Type.String({ description: 'The client secret, instead of HTTP Basic.' })),
    client_assertion_type: Type.Optional(
      Type.String({ description: '`urn:ietf:params:oauth:client-assertion-type:jwt-bearer` for private_key_jwt.' }),
    ),
    client_assertion: Type.Optional(
      Type.String({
        description:
          'A JWT signed by one of the client\u2019s registered keys (RS*, PS*, ES*, EdDSA): `iss` and `sub` the client_id, `aud` the issuer or its /oauth/token address, `exp` at most 5 minutes ahead, a `jti` used once.',
      }),
    ),
  },
  { additionalProperties: true, $id: 'TokenRequest' },
);
export type TokenRequest = Static<typeof TokenRequestBody>;

export const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'Send it as `Authorization: Bearer <access_token>` on every partner route.' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: `Seconds the token lives: ${ACCESS_TOKEN_LIFETIME_SECONDS}.` }),
    scope: Type.String({
      description:
        'The scopes granted, space-separated: ours as asked, SMART scopes as asked (`system/*.rs` written out per resource type the client may read).',
    }),
  },
  { additionalProperties: false, $id: 'TokenResponse' },
);

export const OAuthErrorBody = Type.Object(
  {
    error: Type.Unsafe<string>({ type: 'string', enum: [...OAUTH_ERROR_CODES] }),
    error_description: Type.String(),
  },
  { additionalProperties: false, $id: 'OAuthError', title: 'OAuth error (RFC 6749 §5.2)' },
);

import { Type, type Static } from '@sinclair/typebox';
import { FHIR_BASE_PATH } from '../fhir/fhir-base.js';
import { SMART_SCOPES_SUPPORTED } from '../fhir/smart-scopes.js';
import { ASSERTION_ALGORITHMS } from './client-auth.js';

/** SMART discovery: at the server's root (issue 32) and, as SMART asks of every FHIR endpoint, below the FHIR base. */
export const SMART_CONFIGURATION_PATHS = [
  '/.well-known/smart-configuration',
  `${FHIR_BASE_PATH}/.well-known/smart-configuration`,
];

const Strings = (description: string) => Type.Array(Type.String(), { description });

/**
 * SMART App Launch 2's discovery document, for backend services only: no authorization endpoint,
 * no OpenID Connect (so no `issuer` or `jwks_uri`, which SMART asks for only with
 * `sso-openid-connect`, and this server publishes no key: its access tokens are HMAC-signed).
 *
 * @see https://hl7.org/fhir/smart-app-launch/conformance.html#metadata
 */
export const SmartConfiguration = Type.Object(
  {
    token_endpoint: Type.String({ format: 'uri', description: 'POST /oauth/token, absolute (docs/oauth.md).' }),
    grant_types_supported: Strings('`client_credentials` (SMART backend services).'),
    token_endpoint_auth_methods_supported: Strings(
      '`private_key_jwt` (a client registered with keys), `client_secret_basic` and `client_secret_post` (a client with a secret).',
    ),
    token_endpoint_auth_signing_alg_values_supported: Strings('What a client assertion may be signed with.'),
    scopes_supported: Strings(
      'The SMART v2 scopes granted, each mapped onto a scope of ours; v1\u2019s `system/<type>.read` is accepted too.',
    ),
    response_types_supported: Strings('None: there is no authorization endpoint.'),
    capabilities: Strings('The SMART capabilities this server supports.'),
    code_challenge_methods_supported: Strings('S256, as SMART 2 requires of every server (PKCE applies to no flow here).'),
  },
  { $id: 'SmartConfiguration', additionalProperties: false },
);
export type SmartConfigurationView = Static<typeof SmartConfiguration>;

/** The token endpoint's absolute URL under `baseUrl` (http/request-host.ts `publicBaseUrl`): discovery's, and an assertion's `aud`. */
export function tokenEndpointOf(baseUrl: string): string {
  return `${baseUrl}/oauth/token`;
}

/** The discovery document, its URLs under `baseUrl` (http/request-host.ts `publicBaseUrl`). */
export function smartConfiguration(baseUrl: string): SmartConfigurationView {
  return {
    token_endpoint: tokenEndpointOf(baseUrl),
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['private_key_jwt', 'client_secret_basic', 'client_secret_post'],
    token_endpoint_auth_signing_alg_values_supported: [...ASSERTION_ALGORITHMS],
    scopes_supported: [...SMART_SCOPES_SUPPORTED],
    response_types_supported: [],
    capabilities: ['client-confidential-asymmetric', 'client-confidential-symmetric', 'permission-v1', 'permission-v2'],
    code_challenge_methods_supported: ['S256'],
  };
}

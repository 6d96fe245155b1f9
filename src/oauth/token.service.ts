import type { FastifyReply, FastifyRequest } from 'fastify';
import { allows, isScope, type Scope } from '../clinics/scopes.js';
import type { AppContext } from '../context.js';
import { FHIR_RESOURCE_SCOPES, FHIR_RESOURCE_TYPES, readSmartScope, smartScopeName } from '../fhir/smart-scopes.js';
import { signAccessToken } from './access-token.js';
import { authenticateClient } from './client-auth.js';
import { scopesOf } from './oauth-client.service.js';
import { invalidRequest, OAuthError } from './oauth-errors.js';
import type { TokenRequest } from './oauth.schemas.js';
import { admitTokenAttempt } from './token-rate-limit.js';
import { clientCredentialsOf } from './token-request.js';

/** RFC 6749 §5.1's successful answer. */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/**
 * POST /oauth/token, the client credentials grant (RFC 6749 §4.4): the address's failures are
 * counted first, the grant type checked, the client's failures counted, the client authenticated
 * (secret or private_key_jwt), the requested scopes checked against the client's, and a token signed.
 * `addressBucket`: the caller's address as its failures are counted (http/client-address.ts `addressBucketOf`);
 * `tokenEndpoint`: this endpoint's URL as the caller was told it (smart-configuration.ts `tokenEndpointOf`).
 */
export async function issueToken(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  form: TokenRequest,
  addressBucket: string,
  tokenEndpoint: string,
): Promise<TokenAnswer> {
  const releaseAddress = await admitTokenAttempt(ctx, reply, { kind: 'address', id: addressBucket });
  if (form.grant_type === undefined) throw invalidRequest('grant_type is required (client_credentials)');
  if (form.grant_type !== 'client_credentials') {
    throw new OAuthError(
      'unsupported_grant_type',
      400,
      `grant_type ${form.grant_type.slice(0, 100)} is not supported: use client_credentials`,
    );
  }
  const credentials = clientCredentialsOf(request.headers.authorization, form);
  const releaseClient = await admitTokenAttempt(ctx, reply, { kind: 'client', id: credentials.clientId.slice(0, 100) });
  const client = await authenticateClient(ctx, credentials, tokenEndpoint);
  await Promise.all([releaseAddress(), releaseClient()]);

  const grant = grantedScopes(scopesOf(client), form.scope);
  const signed = await signAccessToken(ctx, {
    clientId: client.id,
    clinicId: client.clinic_id,
    environment: ctx.config.env,
    scopes: grant.scopes,
  });
  return { access_token: signed.token, token_type: 'Bearer', expires_in: signed.expiresIn, scope: grant.names.join(' ') };
}

/** What a token request is granted: the token's scopes (ours, which the partner guard enforces) and the answer's names for them. */
export interface ScopeGrant {
  readonly scopes: Scope[];
  /** The answer's `scope`: the SMART scopes granted as the client wrote them (a wildcard written out per type), and ours asked for. */
  readonly names: string[];
}

/**
 * The scopes a token gets: the client's, or the subset the request names (space-separated, RFC 6749
 * §3.3; `orders:read` is within a client's `orders:write`). A SMART scope (`system/Patient.rs`, v1
 * `system/Patient.read`) is granted as the scope of ours that reads its type (fhir/smart-scopes.ts);
 * `system/*.rs` as every type the client may read, none being `invalid_scope`. Anything else (a scope
 * outside the client's, a write, a type this server does not serve) is `invalid_scope`.
 */
export function grantedScopes(clientScopes: readonly Scope[], requested: string | undefined): ScopeGrant {
  if (requested === undefined || requested.trim() === '') return { scopes: [...clientScopes], names: [...clientScopes] };
  const scopes = new Set<Scope>();
  const names = new Set<string>();
  const held = `this client\u2019s scopes (${clientScopes.join(' ')})`;
  for (const name of new Set(requested.split(' ').filter((part) => part !== ''))) {
    const smart = readSmartScope(name);
    if (smart === null) {
      if (!isScope(name) || !allows(clientScopes, name)) throw invalidScope(`scope ${name.slice(0, 100)} is not among ${held}`);
      scopes.add(name);
      names.add(name);
      continue;
    }
    if ('refusal' in smart) throw invalidScope(`scope ${name.slice(0, 100)} is not granted: ${smart.refusal}`);
    const { type, suffix } = smart.scope;
    if (type !== '*' && !allows(clientScopes, FHIR_RESOURCE_SCOPES[type])) {
      throw invalidScope(`scope ${name} needs ${FHIR_RESOURCE_SCOPES[type]}, which is not among ${held}`);
    }
    const types = type === '*' ? FHIR_RESOURCE_TYPES.filter((each) => allows(clientScopes, FHIR_RESOURCE_SCOPES[each])) : [type];
    if (types.length === 0) throw invalidScope(`scope ${name} grants nothing: no FHIR resource is readable with ${held}`);
    for (const each of types) {
      scopes.add(FHIR_RESOURCE_SCOPES[each]);
      names.add(smartScopeName(each, suffix));
    }
  }
  return { scopes: [...scopes], names: [...names] };
}

const invalidScope = (description: string) => new OAuthError('invalid_scope', 400, description);
